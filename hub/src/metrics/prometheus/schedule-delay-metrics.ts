import { Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';

// Seconds, from 100 ms to 10 minutes: a healthy queue starts a run within a second or two of its slot; minutes
// mean the workers of the location cannot keep up (or were down).
const DELAY_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * How late this worker started each scheduled run: the time from the run's slot to the moment the worker took
 * its job, by location. Manual runs have no slot and are not observed. A negative figure (the scheduler's
 * clock ahead of the worker's) counts as 0.
 */
export function createScheduleDelayMetrics(registry: Registry): (driftMs: number, location: string) => void {
  const delays = new Histogram({
    name: `${METRIC_PREFIX}run_schedule_delay_seconds`,
    help: 'Delay from a scheduled run slot to its start by this worker, by location.',
    labelNames: ['location'],
    buckets: DELAY_BUCKETS,
    registers: [registry],
  });
  return (driftMs, location) => delays.observe({ location }, Math.max(0, driftMs) / 1000);
}
