import { sql } from 'kysely';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textArray, textArrayLiteral, timestampArray } from '../../hub/src/db/array-params.js';
import { openDatabase, type Db } from '../../hub/src/db/database.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

// Text arrays are sent as literals built by Meerkat, not by node-postgres (docs/adr/0088): the literal must be the
// one pg would build, and PostgreSQL must read back exactly the values given, whatever characters they hold.
const awkward: Array<string | null> = [
  '',
  'plain',
  'a "quoted" word',
  'back\\slash and \\"both\\"',
  '{"steps":[["n1","HTTP_REQUEST",{"excerpt":"a \\"b\\" \\\\ c"}]]}',
  'line\nbreak\ttab\r\u0001\u001f',
  'emoji 🦦 and accents éß',
  'lone \ud800 surrogate',
  'NULL',
  'comma, {brace} and spaces ',
  null,
];

describe('textArrayLiteral', () => {
  it('writes what node-postgres writes for the same array', () => {
    expect(textArrayLiteral(awkward)).toBe(preparedByPg(awkward));
    expect(textArrayLiteral([])).toBe(preparedByPg([]));
    expect(textArrayLiteral([null, null])).toBe('{NULL,NULL}');
  });
});

/** pg's own literal of an array parameter (`prepareValue`, which `escapeElement` quotes elements for). */
function preparedByPg(values: ReadonlyArray<string | null>): string {
  // pg's utils are not in its types; prepareValue is what the client calls on every parameter.
  const utils = createRequire(import.meta.url)('pg/lib/utils.js') as {
    prepareValue(value: unknown): unknown;
  };
  return String(utils.prepareValue(values));
}

describe('text and timestamp array parameters in PostgreSQL', () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openDatabase({ url: database.url, dataDir: '/nonexistent', poolSize: 1 }).db;
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('reads back every value, null and character as given', async () => {
    // PostgreSQL text cannot hold U+0000, and pg sends a lone surrogate as U+FFFD: both are left out here.
    const values = awkward.map((value) => (value === null ? null : value.replace(/\ud800/, '')));
    const { rows } = await sql<{ value: string | null; n: string }>`
      select value, n from unnest(${textArray(values)}) with ordinality as u(value, n) order by n`.execute(
      db,
    );
    expect(rows.map((row) => row.value)).toEqual(values);
  });

  it('reads back dates as the instants given', async () => {
    const dates = [new Date('2026-11-30T12:00:00.123Z'), null, new Date(0)];
    const { rows } = await sql<{ at: Date | null }>`
      select at from unnest(${timestampArray(dates)}) with ordinality as u(at, n) order by n`.execute(db);
    expect(rows.map((row) => row.at?.toISOString() ?? null)).toEqual(
      dates.map((date) => date?.toISOString() ?? null),
    );
  });
});
