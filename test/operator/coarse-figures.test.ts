// The figures a Monitor status shows (ADR 0054): coarse, so that a status written once stays put while the
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

  it('a p95 hovering at a band’s edge keeps the band shown, and leaves it a tenth past either edge', () => {
    // Shown as 100 (51 to 100 ms): 99, 101, 109 keep it; 111 and 44 do not.
    expect([99, 101, 109, 50, 46].map((p95) => coarseP95Ms(p95, 100))).toEqual([100, 100, 100, 100, 100]);
    expect(coarseP95Ms(111, 100)).toBe(200);
    expect(coarseP95Ms(44, 100)).toBe(50);
    // Shown as 200 (101 to 200 ms), a figure of 95 is still inside the widened band.
    expect(coarseP95Ms(95, 200)).toBe(200);
    expect(coarseP95Ms(89, 200)).toBe(100);
  });

  it('a band the status never shows (an older, finer figure) is replaced by the figure’s own band', () => {
    expect(coarseP95Ms(41, 43)).toBe(50);
  });
});
