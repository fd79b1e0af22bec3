import { sql, type Kysely } from 'kysely';

// `runs` becomes a table partitioned by day of `created_at` (docs/adr/0021-bounded-run-storage.md), so retention
// drops a day's partition instead of deleting its rows one by one. A partitioned table's keys must hold the
// partition column: the primary key becomes (organization_id, id, created_at) and the slot key gains `created_at`,
// which for a scheduled run is its slot's due time (every delivery of a slot computes the same one). Rows that fall
// in no day partition (a clock far off, a partition not made yet) land in `runs_default`, so a write never fails.
// The partitions these statements make are the days the existing rows need and the next week; from then on the
// processes make each day's partition ahead of time (hub/src/runs/run-partitions.ts).

const DAY_MS = 86_400_000;
const DAYS_AHEAD = 7;

const COLUMNS = sql`organization_id, id, monitor_id, execution_group_id, location, environment, status,
  triggered_by, schedule_slot, started_at, completed_at, duration_ms, success, errors, steps, browser, created_at`;

function dayName(day: Date): string {
  return `runs_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

async function createDayPartition(db: Kysely<unknown>, day: Date): Promise<void> {
  const next = new Date(day.getTime() + DAY_MS);
  await sql`create table ${sql.table(dayName(day))} partition of runs
    for values from (${sql.lit(day.toISOString())}) to (${sql.lit(next.toISOString())})`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs rename to runs_unpartitioned`.execute(db);
  await sql`alter table runs_unpartitioned rename constraint runs_pk to runs_unpartitioned_pk`.execute(db);
  await sql`alter table runs_unpartitioned rename constraint runs_schedule_slot_key
    to runs_unpartitioned_schedule_slot_key`.execute(db);
  await sql`alter table runs_unpartitioned rename constraint runs_monitor_fk to runs_unpartitioned_monitor_fk`.execute(
    db,
  );
  for (const index of ['runs_by_monitor', 'runs_by_status', 'runs_by_created', 'runs_unfinished'])
    await sql`alter index ${sql.table(index)} rename to ${sql.table(`${index}_unpartitioned`)}`.execute(db);

  await sql`
    create table runs (
      organization_id text not null,
      id text not null,
      monitor_id text not null,
      execution_group_id text not null,
      location text not null,
      environment text not null,
      status text not null check (status in ('pending', 'running', 'completed', 'failed')),
      triggered_by text not null check (triggered_by in ('schedule', 'manual')),
      schedule_slot text,
      started_at timestamptz,
      completed_at timestamptz,
      duration_ms double precision,
      success boolean,
      errors jsonb not null default '[]'::jsonb,
      steps jsonb,
      browser text,
      created_at timestamptz not null default now(),
      constraint runs_pk primary key (organization_id, id, created_at),
      constraint runs_schedule_slot_key unique (organization_id, monitor_id, location, schedule_slot, created_at),
      constraint runs_monitor_fk foreign key (organization_id, monitor_id)
        references monitors (organization_id, id) on delete cascade
    ) partition by range (created_at)`.execute(db);
  await sql`create index runs_by_monitor on runs (organization_id, monitor_id, created_at desc)`.execute(db);
  await sql`create index runs_by_status on runs (organization_id, status, created_at desc)`.execute(db);
  await sql`create index runs_by_created on runs (organization_id, created_at desc)`.execute(db);
  // The reaper scans only unfinished runs.
  await sql`create index runs_unfinished on runs (status, started_at)
    where status in ('pending', 'running')`.execute(db);
  await sql`create table runs_default partition of runs default`.execute(db);

  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const { rows: days } = await sql<{ day: Date }>`
    select distinct date_bin('1 day', created_at, timestamptz 'epoch') as day from runs_unpartitioned`.execute(
    db,
  );
  const needed = new Set(days.map(({ day }) => day.getTime()));
  for (let day = today; day <= today + DAYS_AHEAD * DAY_MS; day += DAY_MS) needed.add(day);
  for (const day of [...needed].sort((a, b) => a - b)) await createDayPartition(db, new Date(day));

  await sql`insert into runs (${COLUMNS}) select ${COLUMNS} from runs_unpartitioned`.execute(db);
  await sql`drop table runs_unpartitioned`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs rename to runs_partitioned`.execute(db);
  for (const name of ['runs_pk', 'runs_schedule_slot_key', 'runs_monitor_fk'])
    await sql`alter table runs_partitioned rename constraint ${sql.ref(name)} to ${sql.ref(`${name}_partitioned`)}`.execute(
      db,
    );
  for (const index of ['runs_by_monitor', 'runs_by_status', 'runs_by_created', 'runs_unfinished'])
    await sql`alter index ${sql.table(index)} rename to ${sql.table(`${index}_partitioned`)}`.execute(db);
  await sql`
    create table runs (like runs_partitioned including defaults including constraints,
      constraint runs_pk primary key (organization_id, id),
      constraint runs_schedule_slot_key unique (organization_id, monitor_id, location, schedule_slot),
      constraint runs_monitor_fk foreign key (organization_id, monitor_id)
        references monitors (organization_id, id) on delete cascade)`.execute(db);
  await sql`create index runs_by_monitor on runs (organization_id, monitor_id, created_at desc)`.execute(db);
  await sql`create index runs_by_status on runs (organization_id, status, created_at desc)`.execute(db);
  await sql`create index runs_by_created on runs (organization_id, created_at desc)`.execute(db);
  await sql`create index runs_unfinished on runs (status, started_at)
    where status in ('pending', 'running')`.execute(db);
  await sql`insert into runs (${COLUMNS}) select ${COLUMNS} from runs_partitioned`.execute(db);
  await sql`drop table runs_partitioned`.execute(db);
}
