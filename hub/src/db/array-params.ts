import { sql, type RawBuilder } from 'kysely';

// Batched writes pass each column as one array parameter and `unnest` them (docs/adr/0022-batched-run-writes.md):
// the statement's text, its parse and its plan are the same for 1 row or 250, and building it costs the same.

/**
 * What JSON.stringify would escape besides `"` and `\`: control characters and (lone) surrogates. A string with none
 * is quoted by JSON.stringify exactly as PostgreSQL's array literal quotes it.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const JSON_ESCAPES_MORE = /[\u0000-\u001f\ud800-\udfff]/;

/**
 * One element of an array literal, as node-postgres's `escapeElement` writes it (`\` and `"` behind a backslash,
 * in double quotes), through JSON.stringify where that writes the same: V8's native quoting takes about half the CPU
 * of pg's two regular-expression replaces on a run's JSON columns
 * (docs/adr/0088-cheaper-http-requests-and-array-parameters.md).
 */
const quoteElement = (value: string): string =>
  JSON_ESCAPES_MORE.test(value)
    ? `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
    : JSON.stringify(value);

/** PostgreSQL's literal of a one-dimensional array of text values or nulls, what pg would send for the array. */
export function textArrayLiteral(values: ReadonlyArray<string | null>): string {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) literal += ',';
    const value = values[i];
    literal += value === null || value === undefined ? 'NULL' : quoteElement(value);
  }
  return `${literal}}`;
}

/** Dates as one `timestamptz[]` parameter, of ISO strings (node-postgres would write them in local time). */
export const timestampArray = (dates: ReadonlyArray<Date | null>): RawBuilder<unknown> =>
  sql`${textArrayLiteral(dates.map((date) => date?.toISOString() ?? null))}::timestamptz[]`;

/** Text values (or nulls) as one `text[]` parameter, its literal built here (`textArrayLiteral`). */
export const textArray = (values: ReadonlyArray<string | null>): RawBuilder<unknown> =>
  sql`${textArrayLiteral(values)}::text[]`;
