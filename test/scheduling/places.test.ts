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

  it('serves waiting tasks by turns across shares, in order within one', async () => {
    const places = createPlaces(1);
    const started: string[] = [];
    let release = () => {};
    const first = places.run(() => new Promise<void>((resolve) => (release = resolve)), 'a');
    const tasks = ['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'c1'].map((name) =>
      places.run(() => Promise.resolve(void started.push(name)), name.slice(0, 1)),
    );
    release();
    await Promise.all([first, ...tasks]);
    // b and c came after four of a, and wait one turn each, not behind all of a.
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('sheds the oldest sheddable waiting task of the share with the most waiting', async () => {
    const places = createPlaces(1);
    let release = () => {};
    const first = places.run(() => new Promise<void>((resolve) => (release = resolve)));
    const outcome = (name: string, share: string, sheddable = true) =>
      places.run(() => Promise.resolve(name), share, sheddable).catch((error: Error) => error.message);
    const waiting = [outcome('a1', 'a', false), outcome('a2', 'a'), outcome('a3', 'a'), outcome('b1', 'b')];
    // a has three waiting, b one: a2 goes, then a still has more waiting than b: a3 goes.
    expect(places.shed(2, () => new Error('shed'))).toBe(2);
    // a's last one is a manual run, which stays: only b1 can go.
    expect(places.shed(5, () => new Error('shed'))).toBe(1);
    release();
    await first;
    expect(await Promise.all(waiting)).toEqual(['a1', 'shed', 'shed', 'shed']);
  });
});
