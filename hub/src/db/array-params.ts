import { sql, type RawBuilder } from 'kysely';

// Batched writes pass each column as one array parameter and `unnest` them (docs/adr/0022-batched-run-writes.md):
// the statement's text, its parse and its plan are the same for 1 row or 250, and building it costs the same.

/** Dates as one `timestamptz[]` parameter, of ISO strings (node-postgres would write them in local time). */
export const timestampArray = (dates: ReadonlyArray<Date | null>): RawBuilder<unknown> =>
  sql`${dates.map((date) => date?.toISOString() ?? null)}::timestamptz[]`;

/** Text values (or nulls) as one `text[]` parameter. */
export const textArray = (values: ReadonlyArray<string | null>): RawBuilder<unknown> =>
  sql`${values}::text[]`;
