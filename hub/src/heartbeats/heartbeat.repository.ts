import { sql, type Selectable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { HeartbeatTable } from '../db/tables.js';

export type HeartbeatRow = Selectable<HeartbeatTable>;

export interface HeartbeatSettings {
  organizationId: string;
  monitorId: string;
  environment: string;
  periodSeconds: number;
  graceSeconds: number;
}

/**
 * A heartbeat monitor's row follows its definition. A changed period or grace moves a running deadline to the
 * last ping plus the new period and grace (at the earliest now, so a job already late is judged at once); an
 * unchanged one keeps it, so re-applying the same definition never forgives or repeats a miss.
 */
export async function upsertHeartbeat(db: Executor, heartbeat: HeartbeatSettings): Promise<void> {
  await db
    .insertInto('heartbeats')
    .values({
      organization_id: heartbeat.organizationId,
      monitor_id: heartbeat.monitorId,
      environment: heartbeat.environment,
      period_seconds: heartbeat.periodSeconds,
      grace_seconds: heartbeat.graceSeconds,
    })
    .onConflict((oc) =>
      oc.columns(['organization_id', 'monitor_id']).doUpdateSet({
        environment: (eb) => eb.ref('excluded.environment'),
        period_seconds: (eb) => eb.ref('excluded.period_seconds'),
        grace_seconds: (eb) => eb.ref('excluded.grace_seconds'),
        deadline_at: sql`case
          when heartbeats.deadline_at is null
            or (heartbeats.period_seconds = excluded.period_seconds
              and heartbeats.grace_seconds = excluded.grace_seconds)
          then heartbeats.deadline_at
          else greatest(now(), heartbeats.last_ping_at
            + make_interval(secs => excluded.period_seconds + excluded.grace_seconds))
          end`,
      }),
    )
    .execute();
}

export async function deleteHeartbeat(
  db: Executor,
  organizationId: string,
  monitorId: string,
): Promise<void> {
  await db
    .deleteFrom('heartbeats')
    .where('organization_id', '=', organizationId)
    .where('monitor_id', '=', monitorId)
    .execute();
}

/** Replaces the token's hash; false when the monitor is not a heartbeat monitor of the organization. */
export async function setTokenHash(
  db: Executor,
  organizationId: string,
  monitorId: string,
  tokenHash: string,
): Promise<boolean> {
  const updated = await db
    .updateTable('heartbeats')
    .set({ token_hash: tokenHash })
    .where('organization_id', '=', organizationId)
    .where('monitor_id', '=', monitorId)
    .returning('monitor_id')
    .executeTakeFirst();
  return updated !== undefined;
}

/** The heartbeat a token's hash names, locked until the transaction ends (pings of one job are serialized). */
export async function lockHeartbeatByTokenHash(
  db: Executor,
  tokenHash: string,
): Promise<HeartbeatRow | undefined> {
  return db
    .selectFrom('heartbeats')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .forUpdate()
    .executeTakeFirst();
}

export async function updatePingState(
  db: Executor,
  row: Pick<HeartbeatRow, 'organization_id' | 'monitor_id'>,
  state: Partial<Pick<HeartbeatRow, 'last_ping_at' | 'started_at' | 'deadline_at'>>,
): Promise<void> {
  await db
    .updateTable('heartbeats')
    .set(state)
    .where('organization_id', '=', row.organization_id)
    .where('monitor_id', '=', row.monitor_id)
    .execute();
}

/**
 * Up to `limit` heartbeats whose deadline has passed, in the order run hooks lock monitors, locked; one another
 * hub process has locked is skipped (that process is recording its miss).
 */
export async function lockOverdueHeartbeats(db: Executor, now: Date, limit: number): Promise<HeartbeatRow[]> {
  return db
    .selectFrom('heartbeats')
    .selectAll()
    .where('deadline_at', '<=', now)
    .orderBy('organization_id')
    .orderBy('monitor_id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}
