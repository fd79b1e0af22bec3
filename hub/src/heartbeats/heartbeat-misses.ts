import { startPeriodic, type Periodic } from '../system/periodic.js';
import type { HeartbeatService } from './heartbeat.service.js';
import type { Logger } from 'pino';

/** How often a hub looks for heartbeats past their deadline: a miss is recorded within this of it. */
const MISS_CHECK_INTERVAL_MS = 5_000;

/**
 * Records missed heartbeat periods from every hub process: each pass locks the overdue rows it takes (others
 * skip them) and moves their deadlines in the transaction that records their runs, so two hubs never record
 * one miss twice (docs/adr/0034-heartbeat-monitors.md).
 */
export function startHeartbeatMisses(service: HeartbeatService, log: Logger): Periodic {
  return startPeriodic(
    () => service.recordMisses(),
    MISS_CHECK_INTERVAL_MS,
    (error) => log.warn({ err: error }, 'recording missed heartbeats failed; retrying'),
  );
}
