import { describe, expect, it } from 'vitest';
import { utcTick, when } from '../../web/src/format.js';

describe('the console’s times', () => {
  it('writes a chart tick in 24-hour UTC, as every other time of the console', () => {
    const afternoon = Date.UTC(2026, 10, 27, 15, 4, 59);
    expect(utcTick(afternoon / 1000)).toBe('11-27 15:04');
    expect(when(new Date(afternoon).toISOString())).toBe('2026-11-27 15:04:59 UTC');
  });
});
