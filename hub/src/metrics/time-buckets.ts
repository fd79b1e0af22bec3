/** The rollup tiers' time buckets, in UTC: minutes, hours and days since the epoch. */
const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

const floorTo = (time: Date, ms: number) => new Date(Math.floor(time.getTime() / ms) * ms);
const ceilTo = (time: Date, ms: number) => new Date(Math.ceil(time.getTime() / ms) * ms);

/** The minute `time` falls in. */
export const minuteOf = (time: Date) => floorTo(time, MINUTE_MS);
/** The hour `time` falls in. */
export const hourOf = (time: Date) => floorTo(time, HOUR_MS);
/** The first whole hour at or after `time`. */
export const hourCeilOf = (time: Date) => ceilTo(time, HOUR_MS);
/** The UTC day `time` falls in. */
export const dayOf = (time: Date) => floorTo(time, DAY_MS);
/** The first whole day at or after `time`. */
export const dayCeilOf = (time: Date) => ceilTo(time, DAY_MS);

/** A run's time is when it started; one the reaper failed before it started is placed at its creation. */
export const runTimeOf = (run: { started_at: Date | null; created_at: Date }) =>
  run.started_at ?? run.created_at;
