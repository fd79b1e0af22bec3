import { HEARTBEAT_LOCATION } from '../contract/heartbeat.js';
import { newId } from '../db/ids.js';
import { resultColumns, type FinishedScheduledRun, type RunResult } from '../runs/run.repository.js';
import type { HeartbeatRow } from './heartbeat.repository.js';

/** A run row of a heartbeat: at the heartbeat location, in a slot of its own time (unique per monitor). */
export function heartbeatRun(row: HeartbeatRow, startedAt: Date, result: RunResult): FinishedScheduledRun {
  return {
    organization_id: row.organization_id,
    id: newId('run'),
    monitor_id: row.monitor_id,
    execution_group_id: newId('grp'),
    location: HEARTBEAT_LOCATION,
    environment: row.environment,
    schedule_slot: String(result.completedAt.getTime()),
    started_at: startedAt,
    ...resultColumns(result),
  };
}
