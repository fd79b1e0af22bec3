/**
 * At most `limit` tasks at once, the rest waiting in the order they came: a worker's checks under way
 * (WORKER_CONCURRENCY), a consumer's runs delivered (the single jobs and the slots of every batch job it holds).
 */
export function createPlaces(limit: number) {
  let free = limit;
  const waiting: Array<() => void> = [];
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (free > 0) free -= 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        // A freed place goes straight to the first waiter, so a newcomer cannot overtake it.
        const next = waiting.shift();
        if (next === undefined) free += 1;
        else next();
      }
    },
  };
}

export type Places = ReturnType<typeof createPlaces>;
