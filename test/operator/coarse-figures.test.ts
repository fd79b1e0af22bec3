// The figures a Monitor status shows (ADR 0054, ADR 0063): coarse, so that a status written once stays put while the
// hub's figures drift with each run.
import { describe, expect, it } from 'vitest';
import { coarseSuccessRate } from '../../operator/src/coarse-figures.js';

describe('coarse health figures', () => {
  it('a success rate shows in whole percent, rounded down, so 100% means every run passed', () => {
    expect([100, 99.97, 99.5, 66.7, 0].map(coarseSuccessRate)).toEqual(['100%', '99%', '99%', '66%', '0%']);
  });
});
