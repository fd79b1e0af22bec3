import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../hub/src/db/database.js';

describe('the embedded database of meerkat dev', () => {
  it('initializes a new data folder, keeps what was written, and opens it again with 16 MB of shared buffers', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'meerkat-embedded-'));
    try {
      const first = openDatabase({ dataDir });
      await sql`create table notes (body text)`.execute(first.db);
      await sql`insert into notes values ('kept')`.execute(first.db);
      await first.db.destroy();

      const second = openDatabase({ dataDir });
      const { rows } = await sql<{ body: string }>`select body from notes`.execute(second.db);
      const buffers = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(second.db);
      await second.db.destroy();
      expect(rows).toEqual([{ body: 'kept' }]);
      expect(buffers.rows).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
