import { sql, type Kysely } from 'kysely';

// Two fewer index entries for each passing run (docs/adr/0055-fewer-index-entries-per-run.md). The slot key holds
// the same columns with `created_at` right after the monitor, so it also answers a monitor's runs newest first and
// `runs_by_monitor` goes; a unique key is the same constraint in any column order, and `on conflict` names its
// columns, not their order. `runs_by_status` keeps only the runs that did not pass: a status filter on
// `completed`, most runs, walks `runs_by_created` instead.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs drop constraint runs_schedule_slot_key`.execute(db);
  await sql`alter table runs add constraint runs_schedule_slot_key
    unique (organization_id, monitor_id, created_at, location, schedule_slot)`.execute(db);
  await sql`drop index runs_by_monitor`.execute(db);
  await sql`drop index runs_by_status`.execute(db);
  await sql`create index runs_by_status on runs (organization_id, status, created_at desc)
    where status <> 'completed'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index runs_by_status`.execute(db);
  await sql`create index runs_by_status on runs (organization_id, status, created_at desc)`.execute(db);
  await sql`create index runs_by_monitor on runs (organization_id, monitor_id, created_at desc)`.execute(db);
  await sql`alter table runs drop constraint runs_schedule_slot_key`.execute(db);
  await sql`alter table runs add constraint runs_schedule_slot_key
    unique (organization_id, monitor_id, location, schedule_slot, created_at)`.execute(db);
}
