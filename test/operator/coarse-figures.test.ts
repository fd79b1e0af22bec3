// The figures a Monitor status shows (ADR 0054, ADR 0057): coarse, so that a status written once stays put while the
// hub's figures drift with each run, and moves when they leave their band.
import { describe, expect, it } from 'vitest';
import { coarseP95Ms, coarseSuccessRate } from '../../operator/src/coarse-figures.js';

describe('coarse health figures', () => {
  it('a success rate shows in whole percent, rounded down, so 100% means every run passed', () => {
    expect([100, 99.97, 99.5, 66.7, 0].map(coarseSuccessRate)).toEqual(['100%', '99%', '99%', '66%', '0%']);
  });

  it('a p95 shows as the upper edge of its 1-2-5 band', () => {
    expect(
      [0, 0.4, 1, 11, 20, 20.5, 120.4, 4_999, 86_400_000].map((p95) => coarseP95Ms(p95, undefined)),
    ).toEqual([1, 1, 1, 20, 20, 50, 200, 5_000, 50_000_000]);
  });

  it('a p95 keeps the band shown while it stays within one band of it, and shows its own band past that', () => {
    // Shown as 100 (51 to 100 ms): anything from 21 ms (the band below) to 200 ms (the band above) keeps it.
    expect([99, 101, 109, 111, 200, 50, 44, 21].map((p95) => coarseP95Ms(p95, 100))).toEqual([
      100, 100, 100, 100, 100, 100, 100, 100,
    ]);
    expect(coarseP95Ms(201, 100)).toBe(500);
    expect(coarseP95Ms(20, 100)).toBe(20);
    // The slowest of a young Monitor's few runs doubling (12 to 23 ms, issue 39's steady-state writes) moves nothing.
    expect(coarseP95Ms(23, coarseP95Ms(12, undefined))).toBe(20);
  });

  it('a band the status never shows (an older, finer figure) is replaced by the figure’s own band', () => {
    expect(coarseP95Ms(41, 43)).toBe(50);
  });
});
