// Schedules the scheduling tests write: one location, a version the listing shows.
import type { RunSchedule } from '../../hub/src/runs/run-queue.js';

export const EVERY = 10_000;

/** A schedule of monitor `id` in `default`, every `everyMs` at `offsetMs`, at version v1. */
export function schedule(id: string, offsetMs = 500, everyMs = EVERY): RunSchedule {
  return {
    id,
    location: 'default',
    everyMs,
    offsetMs,
    data: { organizationId: 'acme', monitorId: id, location: 'default', version: 'v1' },
  };
}
