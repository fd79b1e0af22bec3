/** Time, passed in so tests can hold it still. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
