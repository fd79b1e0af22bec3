import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import {
  bumpSecretMapRevision,
  deleteSecretMapRow,
  findSecretMapRevision,
  findSecretMapRow,
  saveSecretMapRow,
  withSecretMapLock,
} from '../../hub/src/secrets/secret-map.repository.js';
import { databaseEngines } from '../harness/engines.js';

const at = new Date('2026-03-01T12:00:00Z');
const row = (organizationId: string, environment: string, version: number) => ({
  organization_id: organizationId,
  environment,
  ciphertext: `v1.cipher-of-${organizationId}-${environment}-${version}`,
  version,
  updated_at: at,
});

describe.each(databaseEngines)('the secret map repository on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ db, dispose } = await engine.open());
  });
  afterAll(() => dispose());

  it('keeps one map row per organization and environment, replacing it on save', async () => {
    await saveSecretMapRow(db, row('acme', 'default', 1));
    await saveSecretMapRow(db, row('acme', 'default', 2));
    await saveSecretMapRow(db, row('acme', 'production', 1));
    await saveSecretMapRow(db, row('globex', 'default', 1));
    expect(await findSecretMapRow(db, 'acme', 'default')).toEqual(row('acme', 'default', 2));
    expect((await findSecretMapRow(db, 'globex', 'default'))?.ciphertext).toBe(
      'v1.cipher-of-globex-default-1',
    );
    expect(await findSecretMapRow(db, 'globex', 'production')).toBeUndefined();
  });

  it('deletes only the map of the organization and environment named', async () => {
    await saveSecretMapRow(db, row('initech', 'default', 1));
    await saveSecretMapRow(db, row('initech', 'staging', 1));
    await deleteSecretMapRow(db, 'initech', 'default');
    expect(await findSecretMapRow(db, 'initech', 'default')).toBeUndefined();
    expect(await findSecretMapRow(db, 'initech', 'staging')).toBeDefined();
  });

  it('counts revisions per map from 0', async () => {
    expect(await findSecretMapRevision(db, 'acme', 'rev')).toBe(0);
    expect(await bumpSecretMapRevision(db, 'acme', 'rev', at)).toBe(1);
    expect(await bumpSecretMapRevision(db, 'acme', 'rev', at)).toBe(2);
    expect(await bumpSecretMapRevision(db, 'globex', 'rev', at)).toBe(1);
    expect(await findSecretMapRevision(db, 'acme', 'rev')).toBe(2);
  });

  it('lets 20 concurrent read-then-write rounds on one map under its lock lose nothing', async () => {
    const round = () =>
      withSecretMapLock(db, 'acme', 'locked', async (trx) => {
        const current = await findSecretMapRow(trx, 'acme', 'locked');
        // Give every other round the chance to read the same version, as it would without the lock.
        await yieldToOthers();
        await saveSecretMapRow(trx, row('acme', 'locked', (current?.version ?? 0) + 1));
      });
    await Promise.all(Array.from({ length: 20 }, round));
    expect((await findSecretMapRow(db, 'acme', 'locked'))?.version).toBe(20);
  });

  it('rolls back the writes of a round that fails, and releases the lock', async () => {
    const failing = withSecretMapLock(db, 'acme', 'rollback', async (trx) => {
      await saveSecretMapRow(trx, row('acme', 'rollback', 1));
      throw new Error('the store refused');
    });
    await expect(failing).rejects.toThrow('the store refused');
    expect(await findSecretMapRow(db, 'acme', 'rollback')).toBeUndefined();
    await withSecretMapLock(db, 'acme', 'rollback', (trx) =>
      saveSecretMapRow(trx, row('acme', 'rollback', 1)),
    );
    expect((await findSecretMapRow(db, 'acme', 'rollback'))?.version).toBe(1);
  });
});

describe('the secret map lock on PostgreSQL', () => {
  it('does not make a writer of one map wait for the writer of another', async () => {
    const postgres = databaseEngines.find((engine) => engine.name === 'PostgreSQL');
    if (postgres === undefined) throw new Error('the PostgreSQL engine is missing from the harness');
    const { db, dispose } = await postgres.open();
    try {
      let releaseFirst = () => {};
      const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
      let firstEntered = () => {};
      const entered = new Promise<void>((resolve) => (firstEntered = resolve));
      const first = withSecretMapLock(db, 'acme', 'one', async () => {
        firstEntered();
        await firstHolds;
      });
      await entered;
      // Would never settle if the maps shared a lock, since the first holds its lock until released below.
      await withSecretMapLock(db, 'acme', 'two', () => Promise.resolve());
      releaseFirst();
      await first;
    } finally {
      await dispose();
    }
  });
});
