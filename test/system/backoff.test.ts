import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, createBackoff, type Jitter } from '../../hub/src/system/backoff.js';

const sequence =
  (...values: number[]) =>
  () =>
    values.shift() ?? 0;

describe('exponential backoff', () => {
  it('doubles from initialMs up to maxMs, and stays there', () => {
    const policy = { initialMs: 500, maxMs: 30_000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 100, 5000].map((retry) => backoffDelayMs(policy, retry))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000,
    ]);
    expect(backoffDelayMs(policy, -3)).toBe(500);
  });

  it('spreads the capped delay as the jitter says', () => {
    const at = (jitter: Jitter, random: number) =>
      backoffDelayMs({ initialMs: 1_000, maxMs: 5_000, jitter, random: () => random }, 4);
    expect([at('full', 0), at('full', 0.5), at('full', 0.999)]).toEqual([0, 2_500, 4_995]);
    expect([at('equal', 0), at('equal', 0.5), at('equal', 0.999)]).toEqual([2_500, 3_750, 4_997.5]);
    expect([at({ spread: 0.2 }, 0), at({ spread: 0.2 }, 0.5), at('none', 0.3)]).toEqual([
      4_000, 5_000, 5_000,
    ]);
    expect(at({ spread: 0.2 }, 0.75)).toBeCloseTo(5_500);
  });

  it('stays within its jitter range for any retry and any random number', () => {
    const jitters = fc.constantFrom<Jitter>('none', 'full', 'equal', { spread: 0.2 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        jitters,
        (initialMs, maxMs, retry, random, jitter) => {
          const delay = backoffDelayMs({ initialMs, maxMs, jitter, random: () => random }, retry);
          const capped = Math.min(initialMs * 2 ** Math.min(retry, 64), maxMs);
          const spread = typeof jitter === 'object' ? jitter.spread : 0;
          const lowest = jitter === 'full' ? 0 : jitter === 'equal' ? capped / 2 : capped * (1 - spread);
          expect(delay).toBeGreaterThanOrEqual(lowest);
          expect(delay).toBeLessThanOrEqual(capped * (1 + spread));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('counts failures in a row, and starts again after a reset', () => {
    const backoff = createBackoff({ initialMs: 1_000, maxMs: 60_000 });
    expect(Array.from({ length: 8 }, () => backoff.next())).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000,
    ]);
    backoff.reset();
    expect(backoff.next()).toBe(1_000);
  });

  it('draws each jittered delay from the injected random numbers', () => {
    const backoff = createBackoff({
      initialMs: 200,
      maxMs: 2_000,
      jitter: 'full',
      random: sequence(0.5, 0.25, 1),
    });
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([100, 100, 800]);
  });
});
