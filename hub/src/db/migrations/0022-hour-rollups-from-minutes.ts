import { sql, type Kysely } from 'kysely';

// Hour and day rollups summed from the minute rollups by a periodic pass instead of per run
// (docs/adr/0062-hour-and-day-rollups-from-minutes.md). One row holds how far the hour rows are summed: every hour
// before `hours_summed_until` is in `run_rollups_hour`, every whole day before it in `run_rollups_day`; later
// hours are read from their minutes. The watermark starts at the current hour: the rows results added
// themselves to until now are whole before it, and the current hour's (and day's) are read from the minutes
// until a pass sums them again, from the same minutes.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table rollup_fold_watermark (
    id boolean primary key default true check (id),
    hours_summed_until timestamptz not null
  )`.execute(db);
  await sql`insert into rollup_fold_watermark (hours_summed_until)
    values (date_bin('1 hour', now(), timestamptz 'epoch'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table rollup_fold_watermark`.execute(db);
}
