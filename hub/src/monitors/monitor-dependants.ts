import type { DbTransaction } from '../db/database.js';
import type { Monitor } from '../contract/monitor-definition.js';

export type MonitorChange =
  | { kind: 'upsert'; organizationId: string; monitor: Monitor; previous: Monitor | undefined }
  | { kind: 'delete'; organizationId: string; monitor: Monitor };

/**
 * What hangs off a monitor (its notification rules, its schedules) and must follow every change to it.
 * The monitor service calls each dependant inside the same transaction as the change, so a dependant that
 * throws (a notification naming no integration, say) refuses the whole change and nothing is half-written.
 * Work outside PostgreSQL (BullMQ schedules) is recorded here in the transaction and carried out from that
 * record, never directly (docs/adr/0006-monitor-dependants.md).
 */
export interface MonitorDependant {
  readonly name: string;
  sync(tx: DbTransaction, change: MonitorChange): Promise<void>;
}
