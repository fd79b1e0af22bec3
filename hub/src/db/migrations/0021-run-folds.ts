import { sql, type Kysely } from 'kysely';

// Old passing runs folded into one row per monitor, location and hour (docs/adr/0061-fold-old-passing-runs.md).
// Each array holds one element per folded run, in slot order: ids as uuid (a run's id is `run_` and a UUID), the
// slot in milliseconds into the hour, the start in milliseconds after the slot, the end in milliseconds after the
// start. Partitioned by day of `hour` like `runs`, so the runs' retention drops a day of folds with its runs; the
// day partitions are made ahead by the scheduler (hub/src/runs/run-partitions.ts), rows of a day without one wait
// in the default partition. `runs_fold_candidates` holds the compacted runs not folded yet (about a day of them).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table run_folds (
      organization_id text not null,
      monitor_id text not null,
      location text not null,
      environment text not null,
      hour timestamptz not null,
      first_slot integer not null,
      run_ids uuid[] not null,
      group_ids uuid[] not null,
      slots integer[] not null,
      started integer[] not null,
      completed integer[] not null,
      durations real[] not null,
      steps jsonb not null,
      constraint run_folds_pk primary key (organization_id, monitor_id, location, hour, first_slot)
    ) partition by range (hour)`.execute(db);
  await sql`create index run_folds_by_run on run_folds using gin (run_ids)`.execute(db);
  await sql`create table run_folds_default partition of run_folds default`.execute(db);
  await sql`create index runs_fold_candidates on runs (created_at) where details_compacted`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index runs_fold_candidates`.execute(db);
  await sql`drop table run_folds`.execute(db);
}
