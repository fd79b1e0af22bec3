import { describe, expect, it } from 'vitest';
import { createPlaces } from '../../hub/src/system/places.js';

describe('places', () => {
  it('runs at most its limit at once, the rest in the order they came, and frees a place on failure', async () => {
    const places = createPlaces(2);
    let active = 0;
    let mostActive = 0;
    const started: number[] = [];
    const task = (n: number) =>
      places.run(async () => {
        started.push(n);
        active += 1;
        mostActive = Math.max(mostActive, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active -= 1;
        if (n === 1) throw new Error('task 1 fails');
        return n;
      });
    const outcomes = await Promise.allSettled([0, 1, 2, 3, 4].map(task));

    expect(mostActive).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    // Every place came back, the failed task's too: two more run together.
    mostActive = 0;
    await Promise.all([task(5), task(6)]);
    expect(mostActive).toBe(2);
  });
});
