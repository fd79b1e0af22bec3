import { sql, type Insertable, type Selectable } from 'kysely';
import { jsonColumnValue, storableJsonColumn } from '../db/json-column.js';
import { textArray, timestampArray } from '../db/array-params.js';
import type { Executor } from '../db/database.js';
import { hasSqlState, SqlState } from '../db/errors.js';
import type { RunTable } from '../db/tables.js';
import { findFoldedRun, foldHoldsSlot } from './run-fold.repository.js';
import { compactedSteps, outcomeChanged, recordFoldHours } from './run-keep.repository.js';

export type RunRow = Selectable<RunTable>;

export interface RunFilter {
  monitorId?: string | undefined;
  status?: RunRow['status'] | undefined;
  executionGroupId?: string | undefined;
  /** Runs of the monitors of this project. */
  project?: string | undefined;
  environment?: string | undefined;
}

export async function insertRuns(db: Executor, rows: Insertable<RunTable>[]): Promise<RunRow[]> {
  return db.insertInto('runs').values(rows).returningAll().execute();
}

/** When a scheduled slot was due: its slot is the due time in epoch milliseconds (the queue's job id says so). */
const slotDueAt = (slot: string): Date => new Date(Number(slot));

/**
 * The run of one scheduled slot: inserted once, however often the slot's job is delivered. A second delivery
 * gets `undefined` and does nothing. Its `created_at` is the slot's due time, the same for every delivery: the
 * partition key is part of the slot's unique key (docs/adr/0021-bounded-run-storage.md).
 */
export async function insertScheduledRun(
  db: Executor,
  row: Insertable<RunTable> & { schedule_slot: string },
): Promise<RunRow | undefined> {
  const [inserted] = await insertScheduledRuns(db, [row]);
  return inserted;
}

/**
 * The runs of several scheduled slots in one insert, each once however often its slot's job is delivered: the
 * rows returned are those inserted, a slot that already had its run is left out (as `insertScheduledRun`).
 */
async function insertScheduledRuns(
  db: Executor,
  rows: ReadonlyArray<Insertable<RunTable> & { schedule_slot: string }>,
): Promise<RunRow[]> {
  const unfolded = await withoutFoldedSlots(db, rows);
  if (unfolded.length === 0) return [];
  return db
    .insertInto('runs')
    .values(unfolded.map((row) => ({ ...row, created_at: slotDueAt(row.schedule_slot) })))
    .onConflict((oc) =>
      oc.columns(['organization_id', 'monitor_id', 'location', 'schedule_slot', 'created_at']).doNothing(),
    )
    .returningAll()
    .execute();
}

const HOUR_MS = 3_600_000;

/**
 * `rows` but those whose slot a fold holds (docs/adr/0061-fold-old-passing-runs.md): a late delivery of a folded
 * slot records nothing again. Only slots of an hour that is over can be folded: the usual slot probes nothing.
 */
async function withoutFoldedSlots<Row extends Pick<RunTable, 'organization_id' | 'monitor_id' | 'location'>>(
  db: Executor,
  rows: ReadonlyArray<Row & { schedule_slot: string }>,
): Promise<ReadonlyArray<Row & { schedule_slot: string }>> {
  const hourStart = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  const old = rows.filter((row) => Number(row.schedule_slot) < hourStart);
  if (old.length === 0) return rows;
  const { rows: folded } = await sql<{ i: string }>`
    select i from unnest(${textArray(old.map((r) => r.organization_id))}, ${textArray(old.map((r) => r.monitor_id))},
      ${textArray(old.map((r) => r.location))}, ${timestampArray(old.map((r) => slotDueAt(r.schedule_slot)))})
      with ordinality as u(o, m, l, a, i)
    where ${foldHoldsSlot(sql`u.o`, sql`u.m`, sql`u.l`, sql`u.a`)}`.execute(db);
  const skipped = new Set(folded.map((row) => old[Number(row.i) - 1]));
  return rows.filter((row) => !skipped.has(row));
}

/** A finished scheduled run as a worker hands it over: every column but those the database fills. */
export type FinishedScheduledRun = Pick<
  RunTable,
  'organization_id' | 'id' | 'monitor_id' | 'execution_group_id' | 'location' | 'environment'
> & { schedule_slot: string; started_at: Date } & ReturnType<typeof resultColumns>;

/** RUN_DETAILS_AT_INSERT (docs/adr/0072): `compact-unchanged` inserts passing runs of unchanged outcome compacted. */
export type DetailsAtInsert = 'whole' | 'compact-unchanged';

/**
 * Finished scheduled runs in one insert, each once however often its slot's job is delivered (as
 * `insertScheduledRuns`), with one array parameter per column (db/array-params.ts): the rows returned are those
 * inserted, in the order given. A plain insert of the slots not recorded yet, in a savepoint: `on conflict` would
 * make each row a speculative insert and log a confirmation record for it (48 bytes of WAL a run, docs/adr/0068).
 * Only when another delivery of a slot commits its run between the check and the insert does the unique key
 * refuse it: the same insert again, `on conflict do nothing`, from the savepoint. With `compact-unchanged` a
 * passing run whose previous run of its monitor and location passed is stored compacted, as the compaction would
 * leave it (docs/adr/0072); the rows returned still carry its whole steps, for the hooks (TLS expiry). The insert
 * reads back only the ids it inserted (and which it compacted): each row returned is made from what was sent, as
 * `returning *` would have read it, without PostgreSQL writing out and the worker parsing every column again.
 */
export async function insertFinishedScheduledRuns(
  db: Executor,
  rows: readonly FinishedScheduledRun[],
  detailsAtInsert: DetailsAtInsert = 'whole',
): Promise<RunRow[]> {
  if (rows.length === 0) return [];
  if (!db.isTransaction)
    return db.transaction().execute((tx) => insertFinishedScheduledRuns(tx, rows, detailsAtInsert));
  const insert = async (onConflict: boolean) => {
    const query =
      detailsAtInsert === 'whole'
        ? finishedRunsInsert(rows, onConflict)
        : compactingRunsInsert(rows, onConflict);
    const { rows: inserted } = await query.execute(db);
    return insertedRows(rows, inserted);
  };
  await sql`savepoint finished_runs`.execute(db);
  try {
    const inserted = await insert(false);
    await sql`release savepoint finished_runs`.execute(db);
    return inserted;
  } catch (error) {
    if (!hasSqlState(error, SqlState.uniqueViolation)) throw error;
    await sql`rollback to savepoint finished_runs`.execute(db);
    return insert(true);
  }
}

/** The columns a finished scheduled run is inserted with. */
const FINISHED_RUN_COLUMNS = sql`organization_id, id, monitor_id, execution_group_id, location, environment, status,
  triggered_by, schedule_slot, started_at, completed_at, duration_ms, success, errors, steps`;

/** The rows to insert, one array parameter per column, as `u(o, i, m, g, l, e, st, sl, sa, ca, d, su, er, sp, cr, n)`. */
function finishedRunsSource(rows: readonly FinishedScheduledRun[]) {
  const text = (pick: (row: FinishedScheduledRun) => string | null) => textArray(rows.map(pick));
  return sql`unnest(${text((r) => r.organization_id)}, ${text((r) => r.id)}, ${text((r) => r.monitor_id)},
      ${text((r) => r.execution_group_id)}, ${text((r) => r.location)}, ${text((r) => r.environment)},
      ${text((r) => r.status)}, ${text((r) => r.schedule_slot)}, ${timestampArray(rows.map((r) => r.started_at))},
      ${timestampArray(rows.map((r) => r.completed_at))}, ${rows.map((r) => r.duration_ms)}::float8[],
      ${rows.map((r) => r.success)}::bool[], ${text((r) => r.errors)}, ${text((r) => r.steps)},
      ${timestampArray(rows.map((r) => slotDueAt(r.schedule_slot)))})
      with ordinality as u(o, i, m, g, l, e, st, sl, sa, ca, d, su, er, sp, cr, n)`;
}

/** Of `finishedRunsSource`'s rows, the slots not recorded yet. */
// A slot of an hour that is over may be folded already (docs/adr/0061): it is recorded once, not again.
const SLOT_NOT_RECORDED = sql`(cr >= date_bin('1 hour', now(), timestamptz 'epoch')
      or not ${foldHoldsSlot(sql`o`, sql`m`, sql`l`, sql`cr`)})
      and not exists (select 1 from runs r where r.organization_id = o and r.monitor_id = m and r.created_at = cr
        and r.location = l and r.schedule_slot = sl)`;

const onSlotConflict = (onConflict: boolean) =>
  onConflict
    ? sql`on conflict (organization_id, monitor_id, location, schedule_slot, created_at) do nothing`
    : sql``;

function finishedRunsInsert(rows: readonly FinishedScheduledRun[], onConflict: boolean) {
  return sql<InsertedRun>`
    insert into runs (${FINISHED_RUN_COLUMNS}, created_at)
    select o, i, m, g, l, e, st, 'schedule', sl, sa, ca, d, su, er::jsonb, sp::jsonb, cr
    from ${finishedRunsSource(rows)}
    where ${SLOT_NOT_RECORDED}
    order by n
    ${onSlotConflict(onConflict)}
    returning id, details_compacted`;
}

/** What the inserts read back of each run they inserted. */
type InsertedRun = Pick<RunRow, 'id' | 'details_compacted'>;

/**
 * The rows of the runs inserted, in the order given, as `returning *` reads them: the columns as sent, `errors`
 * and `steps` parsed from the text sent (what `jsonb` stores of it, storable already), `created_at` the slot's due
 * time, and `details_compacted` as the insert set it; the whole steps even of a run stored compacted.
 */
function insertedRows(rows: readonly FinishedScheduledRun[], inserted: readonly InsertedRun[]): RunRow[] {
  const compactedOf = new Map(inserted.map((run) => [run.id, run.details_compacted]));
  const result: RunRow[] = [];
  for (const row of rows) {
    const compacted = compactedOf.get(row.id);
    if (compacted === undefined) continue;
    result.push({
      organization_id: row.organization_id,
      id: row.id,
      monitor_id: row.monitor_id,
      execution_group_id: row.execution_group_id,
      location: row.location,
      environment: row.environment,
      status: row.status,
      triggered_by: 'schedule',
      schedule_slot: row.schedule_slot,
      started_at: row.started_at,
      completed_at: row.completed_at,
      duration_ms: row.duration_ms,
      success: row.success,
      errors: jsonColumnValue<RunRow['errors']>(row.errors),
      steps: row.steps === null ? null : jsonColumnValue<NonNullable<RunRow['steps']>>(row.steps),
      browser: null,
      created_at: slotDueAt(row.schedule_slot),
      details_compacted: compacted,
    });
  }
  return result;
}

/**
 * As `finishedRunsInsert`, but a passing run whose previous run (a row or a fold) passed is inserted compacted
 * (`details_compacted` true): no candidate entry, no later rewrite; its hour is recorded for the fold (ADR 0083)
 * when it is the first of its monitor and location there.
 */
function compactingRunsInsert(rows: readonly FinishedScheduledRun[], onConflict: boolean) {
  return sql<InsertedRun>`
    with input as (
      select u.*, coalesce(su, false) and not ${outcomeChanged(sql`run`)} as compact
      from ${finishedRunsSource(rows)}
        cross join lateral (select o as organization_id, m as monitor_id, l as location, cr as created_at) run
      where ${SLOT_NOT_RECORDED}),
    inserted as (
      insert into runs (${FINISHED_RUN_COLUMNS}, details_compacted, created_at)
      select o, i, m, g, l, e, st, 'schedule', sl, sa, ca, d, su, er::jsonb,
        case when compact then ${compactedSteps(sql`sp::jsonb`)} else sp::jsonb end, compact or null, cr
      from input
      order by n
      ${onSlotConflict(onConflict)}
      returning id, details_compacted, execution_group_id, organization_id, monitor_id, location, created_at),
    fold_hours as (${recordFoldHours(sql`inserted`)})
    select id, details_compacted from inserted`;
}

/** A run by its id: its row, or what a fold keeps of it (docs/adr/0061-fold-old-passing-runs.md). */
export async function findRun(db: Executor, organizationId: string, id: string): Promise<RunRow | undefined> {
  const row = await db
    .selectFrom('runs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ?? findFoldedRun(db, organizationId, id);
}

/** Up to this many matching runs a list's total is counted; above it, it is estimated (docs/runs.md). */
export const COUNTED_TOTAL_LIMIT = 10_000;

const projectMonitorIds = (db: Executor, organizationId: string, project: string) =>
  db
    .selectFrom('monitors')
    .select('monitors.id')
    .where('monitors.organization_id', '=', organizationId)
    .where('monitors.project', '=', project);

function filteredRuns(db: Executor, organizationId: string, filter: RunFilter) {
  let query = db.selectFrom('runs').where('runs.organization_id', '=', organizationId);
  if (filter.monitorId !== undefined) query = query.where('runs.monitor_id', '=', filter.monitorId);
  if (filter.status !== undefined) query = query.where('runs.status', '=', filter.status);
  if (filter.executionGroupId !== undefined)
    query = query.where('runs.execution_group_id', '=', filter.executionGroupId);
  if (filter.environment !== undefined) query = query.where('runs.environment', '=', filter.environment);
  const { project } = filter;
  if (project !== undefined)
    query = query.where('runs.monitor_id', 'in', projectMonitorIds(db, organizationId, project));
  return query;
}

/** The matching runs counted, but no further than one past COUNTED_TOTAL_LIMIT: an index walk of bounded length. */
async function countRunsBounded(db: Executor, organizationId: string, filter: RunFilter): Promise<number> {
  const bounded = filteredRuns(db, organizationId, filter)
    .select(sql<number>`1`.as('one'))
    .limit(COUNTED_TOTAL_LIMIT + 1);
  const { count } = await db
    .selectFrom(bounded.as('bounded'))
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * Finished runs matching `filter` estimated from the day rollups since the day of the oldest run kept: exact
 * but for runs still pending or running and for the first day's runs already deleted. `undefined` for filters the
 * rollups cannot answer (unfinished statuses, an execution group).
 */
export async function estimateRunTotal(
  db: Executor,
  organizationId: string,
  filter: RunFilter,
): Promise<number | undefined> {
  if (filter.executionGroupId !== undefined) return undefined;
  if (filter.status === 'pending' || filter.status === 'running') return undefined;
  const column =
    filter.status === 'completed'
      ? 'success_count'
      : filter.status === 'failed'
        ? 'failure_count'
        : 'run_count';
  const monitor = filter.monitorId === undefined ? sql`` : sql`and d.monitor_id = ${filter.monitorId}`;
  const project =
    filter.project === undefined
      ? sql``
      : sql`and d.monitor_id in (${projectMonitorIds(db, organizationId, filter.project)})`;
  const oldest = filteredRuns(db, organizationId, filter)
    .select('runs.created_at')
    .orderBy('runs.created_at', 'asc')
    .limit(1);
  // A day rollup row is kept per environment and for every environment under '' (metrics/hour-rollup.repository).
  // Days from the one the hours are summed until are still in their hour rows and, after the watermark, in their
  // minutes (docs/adr/0062-hour-and-day-rollups-from-minutes.md): counts add up across the three.
  const summedUntil = sql`(select hours_summed_until from rollup_fold_watermark)`;
  const summedDay = sql`date_bin('1 day', ${summedUntil}, timestamptz 'epoch')`;
  const count = sql.ref(column);
  const { rows } = await sql<{ estimate: string | null }>`
    select sum(d.n) as estimate from (
      select organization_id, monitor_id, environment, day as at, ${count} as n from run_rollups_day
        where day < ${summedDay}
      union all select organization_id, monitor_id, environment, hour, ${count} from run_rollups_hour
        where hour >= ${summedDay} and hour < ${summedUntil}
      union all select organization_id, monitor_id, e.environment, minute, ${count}
        from run_rollups_minute cross join lateral (values (environment), ('')) e(environment)
        where minute >= ${summedUntil}) d
    where d.organization_id = ${organizationId} and d.environment = ${filter.environment ?? ''}
      ${monitor} ${project}
      and d.at >= date_bin('1 day', (${oldest}), timestamptz 'epoch')`.execute(db);
  return Number(rows[0]?.estimate ?? 0);
}

/**
 * A page of runs, newest first, with how many match counted up to one past COUNTED_TOTAL_LIMIT (`counted`):
 * above the limit the caller estimates the total (`estimateRunTotal`).
 */
export async function listRuns(
  db: Executor,
  organizationId: string,
  filter: RunFilter,
  page: { page: number; limit: number },
) {
  const [rows, counted] = await Promise.all([
    filteredRuns(db, organizationId, filter)
      .innerJoin('monitors', (join) =>
        join
          .onRef('monitors.organization_id', '=', 'runs.organization_id')
          .onRef('monitors.id', '=', 'runs.monitor_id'),
      )
      .selectAll('runs')
      .select(['monitors.name as monitor_name', 'monitors.definition as monitor_definition'])
      .orderBy('runs.created_at', 'desc')
      .orderBy('runs.id', 'desc')
      .limit(page.limit)
      .offset(page.page * page.limit)
      .execute(),
    countRunsBounded(db, organizationId, filter),
  ]);
  return { rows, counted };
}

/** pending -> running, once: a second worker holding the same run gets `undefined`. */
export async function claimRun(db: Executor, organizationId: string, id: string, startedAt: Date) {
  return db
    .updateTable('runs')
    .set({ status: 'running', started_at: startedAt })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/**
 * running -> running again, for the redelivered job of a run whose worker died mid-run: the new delivery takes
 * it over instead of leaving it to the reaper (a false failure). `undefined` when it is no longer running.
 */
export async function reclaimRun(db: Executor, organizationId: string, id: string, startedAt: Date) {
  return db
    .updateTable('runs')
    .set({ started_at: startedAt })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('status', '=', 'running')
    .returningAll()
    .executeTakeFirst();
}

export interface RunResult {
  success: boolean;
  errors: string[];
  steps: readonly unknown[] | null;
  completedAt: Date;
  durationMs: number | null;
}

/** The columns of a run that record its result, made storable: errors and steps quote what targets answered. */
export function resultColumns(result: RunResult) {
  return {
    status: result.success ? ('completed' as const) : ('failed' as const),
    success: result.success,
    errors: storableJsonColumn(result.errors),
    steps: result.steps === null ? null : storableJsonColumn(result.steps),
    completed_at: result.completedAt,
    duration_ms: result.durationMs,
  };
}

/**
 * running (or `from`) -> completed/failed, once; `undefined` when the run was in none of the `from` statuses
 * (finished by the reaper, say). The condition is in the UPDATE, so two writers can never both finish a run.
 * Errors and steps quote what targets answered: they are made storable here, on the one way runs are written.
 */
export async function finishRun(
  db: Executor,
  organizationId: string,
  id: string,
  result: RunResult,
  from: ReadonlyArray<RunRow['status']> = ['pending', 'running'],
) {
  return db
    .updateTable('runs')
    .set(resultColumns(result))
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Runs left `running` since before `runningBefore` or `pending` since before `pendingBefore` (at most 500). */
export async function findStuckRuns(db: Executor, cutoffs: { runningBefore: Date; pendingBefore: Date }) {
  return db
    .selectFrom('runs')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'running'), eb('started_at', '<', cutoffs.runningBefore)]),
        eb.and([eb('status', '=', 'pending'), eb('created_at', '<', cutoffs.pendingBefore)]),
      ]),
    )
    .limit(500)
    .execute();
}
