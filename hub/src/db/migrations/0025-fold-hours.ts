import { sql, type Kysely } from 'kysely';

// The fold's candidates as one row per monitor, location and hour instead of an index entry per compacted run
// (docs/adr/0083-fold-hours-instead-of-candidate-entries.md). `runs_fold_candidates` wrote an entry for nearly every
// run with RUN_DETAILS_AT_INSERT=compact-unchanged; `run_fold_hours` gets a row from the first compacted run of a
// monitor and location in an hour (its later runs of the hour find it and write nothing) and loses it when the fold
// has folded that hour. Keyed by hour first, so the fold's oldest hour and its monitors are a walk of the key.
// Up fills it from the compacted runs there are; down makes the index again from the runs.
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const FOLDABLE = sql`id ~ ${sql.lit(`^run_${UUID}$`)} and execution_group_id ~ ${sql.lit(`^grp_${UUID}$`)}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table run_fold_hours (
      hour timestamptz not null,
      organization_id text not null,
      monitor_id text not null,
      location text not null,
      constraint run_fold_hours_pk primary key (hour, organization_id, monitor_id, location)
    )`.execute(db);
  await sql`
    insert into run_fold_hours (hour, organization_id, monitor_id, location)
    select distinct date_bin('1 hour', created_at, timestamptz 'epoch'), organization_id, monitor_id, location
    from runs
    where details_compacted and ${FOLDABLE}`.execute(db);
  await sql`drop index runs_fold_candidates`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index runs_fold_candidates on runs (created_at) where details_compacted`.execute(db);
  await sql`drop table run_fold_hours`.execute(db);
}
