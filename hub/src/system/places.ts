/** A task waiting for a place. */
interface Waiter {
  resolve(): void;
  reject(error: Error): void;
  /** Whether `shed` may take it out of line (a scheduled check may go; a manual run may not). */
  sheddable: boolean;
}

/**
 * At most `limit` tasks at once: a worker's checks under way (WORKER_CONCURRENCY), a consumer's runs delivered
 * (the single jobs and the slots of every batch job it holds). Waiting tasks are served by turns across their
 * `share` (a worker's checks: the organization), in the order they came within one share: an organization with
 * thousands of slots waiting does not make another's few wait behind all of them (docs/adr/0040-overload-is-shed.md).
 * With one share it is first come, first served.
 */
export function createPlaces(limit: number) {
  let free = limit;
  const waiting = new Map<string, Waiter[]>();
  // The shares with a task waiting, in the order of their next turn.
  const turns: string[] = [];

  const take = (share: string, index: number): Waiter | undefined => {
    const queue = waiting.get(share);
    const [waiter] = queue?.splice(index, 1) ?? [];
    if (queue?.length === 0) {
      waiting.delete(share);
      turns.splice(turns.indexOf(share), 1);
    }
    return waiter;
  };

  const next = (): Waiter | undefined => {
    const share = turns.shift();
    if (share === undefined) return undefined;
    turns.push(share);
    return take(share, 0);
  };

  return {
    /** Tasks under way, tasks waiting for a place, and how many of those `shed` may take. */
    counts(): { running: number; waiting: number; sheddable: number } {
      let queued = 0;
      let sheddable = 0;
      for (const queue of waiting.values()) {
        queued += queue.length;
        sheddable += queue.filter((waiter) => waiter.sheddable).length;
      }
      return { running: limit - free, waiting: queued, sheddable };
    },

    async run<T>(task: () => Promise<T>, share = '', sheddable = false): Promise<T> {
      if (free > 0) free -= 1;
      else
        await new Promise<void>((resolve, reject) => {
          const queue = waiting.get(share);
          if (queue !== undefined) return void queue.push({ resolve, reject, sheddable });
          waiting.set(share, [{ resolve, reject, sheddable }]);
          turns.push(share);
        });
      try {
        return await task();
      } finally {
        // A freed place goes straight to the next waiter, so a newcomer cannot overtake it.
        const waiter = next();
        if (waiter === undefined) free += 1;
        else waiter.resolve();
      }
    },

    /**
     * Takes up to `count` sheddable tasks out of line, each the oldest of the share with the most waiting, and
     * fails them with `error()`: room for newer work that costs the largest share first. Answers how many.
     */
    shed(count: number, error: () => Error): number {
      let shed = 0;
      for (; shed < count; shed += 1) {
        let longest: { share: string; index: number; length: number } | undefined;
        for (const [share, queue] of waiting) {
          const index = queue.findIndex((waiter) => waiter.sheddable);
          if (index >= 0 && queue.length > (longest?.length ?? 0))
            longest = { share, index, length: queue.length };
        }
        if (longest === undefined) break;
        take(longest.share, longest.index)?.reject(error());
      }
      return shed;
    },
  };
}

export type Places = ReturnType<typeof createPlaces>;
