import { sql, type Kysely } from 'kysely';

// `run_rollups_minute` becomes a table partitioned by day of `minute` (docs/adr/0024-minute-rollup-retention.md),
// so minute rollups past MINUTE_ROLLUP_RETENTION_DAYS go a day at a time, as runs do (0009). Its primary key
// already holds `minute`. Rows that fall in no day partition land in `run_rollups_minute_default`. The
// partitions made here are the days the existing rows need and the next week; from then on the scheduler makes
// each day's partition ahead of time (hub/src/db/day-partitions.ts). Rows past the retention are copied too: the
// migration does not know the setting, and the scheduler's first pass drops them.

const DAY_MS = 86_400_000;
const DAYS_AHEAD = 7;

const RENAMED = [
  ['constraint', 'run_rollups_minute_pk'],
  ['constraint', 'run_rollups_minute_monitor_fk'],
  ['index', 'run_rollups_minute_by_org_minute'],
] as const;

/** Renames the minute table to `run_rollups_minute_<suffix>`, its keys and index likewise, freeing the names. */
async function setAside(db: Kysely<unknown>, suffix: string): Promise<string> {
  const aside = `run_rollups_minute_${suffix}`;
  await sql`alter table run_rollups_minute rename to ${sql.table(aside)}`.execute(db);
  for (const [kind, name] of RENAMED) {
    const renamed = sql.ref(`${name}_${suffix}`);
    if (kind === 'constraint')
      await sql`alter table ${sql.table(aside)} rename constraint ${sql.ref(name)} to ${renamed}`.execute(db);
    else await sql`alter index ${sql.ref(name)} rename to ${renamed}`.execute(db);
  }
  return aside;
}

/** The keys and the index of the minute table, partitioned or not. */
const KEYS = sql`
  constraint run_rollups_minute_pk primary key (organization_id, monitor_id, minute, location, environment),
  constraint run_rollups_minute_monitor_fk foreign key (organization_id, monitor_id)
    references monitors (organization_id, id) on delete cascade`;

async function createIndex(db: Kysely<unknown>): Promise<void> {
  // The fleet endpoints read every monitor of an organization over a period.
  await sql`create index run_rollups_minute_by_org_minute on run_rollups_minute (organization_id, minute)`.execute(
    db,
  );
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const aside = await setAside(db, 'unpartitioned');
  await sql`create table run_rollups_minute (like ${sql.table(aside)} including defaults, ${KEYS})
    partition by range (minute)`.execute(db);
  await createIndex(db);
  await sql`create table run_rollups_minute_default partition of run_rollups_minute default`.execute(db);

  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const { rows: days } = await sql<{ day: Date }>`
    select distinct date_bin('1 day', minute, timestamptz 'epoch') as day from ${sql.table(aside)}`.execute(
    db,
  );
  const needed = new Set(days.map(({ day }) => day.getTime()));
  for (let day = today; day <= today + DAYS_AHEAD * DAY_MS; day += DAY_MS) needed.add(day);
  for (const day of [...needed].sort((a, b) => a - b)) {
    const from = new Date(day);
    const name = `run_rollups_minute_p${from.toISOString().slice(0, 10).replaceAll('-', '')}`;
    await sql`create table ${sql.table(name)} partition of run_rollups_minute
      for values from (${sql.lit(from.toISOString())}) to (${sql.lit(new Date(day + DAY_MS).toISOString())})`.execute(
      db,
    );
  }

  await sql`insert into run_rollups_minute select * from ${sql.table(aside)}`.execute(db);
  await sql`drop table ${sql.table(aside)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const aside = await setAside(db, 'partitioned');
  await sql`create table run_rollups_minute (like ${sql.table(aside)} including defaults, ${KEYS})`.execute(
    db,
  );
  await createIndex(db);
  await sql`insert into run_rollups_minute select * from ${sql.table(aside)}`.execute(db);
  await sql`drop table ${sql.table(aside)}`.execute(db);
}
