import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deleteConnection,
  findConnection,
  insertConnection,
  listConnections,
} from '../../hub/src/connections/connection.repository.js';
import type { Db } from '../../hub/src/db/database.js';
import { databaseEngines } from '../harness/engines.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

function connectionRow(organizationId: string, id: string, createdAt: string) {
  return {
    organization_id: organizationId,
    id,
    provider: 'cloud',
    auth_method: 'smtp',
    credentials_encrypted: 'v1.x.y.z',
    oauth_scopes: jsonColumn([]),
    metadata: jsonColumn({ team: 'payments' }),
    created_at: createdAt,
    updated_at: createdAt,
  };
}

describe.each(databaseEngines)('the connection repository on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ db, dispose } = await engine.open());
    for (let i = 0; i < 5; i += 1) {
      await insertConnection(db, connectionRow('acme', `con_a${i}`, `2026-01-0${i + 1}T00:00:00Z`));
    }
    await insertConnection(db, connectionRow('globex', 'con_a0', '2026-01-01T00:00:00Z'));
  });
  afterAll(() => dispose());

  it('reads back a row with dates and JSON columns decoded', async () => {
    const row = await findConnection(db, 'acme', 'con_a1');
    expect(row?.created_at).toEqual(new Date('2026-01-02T00:00:00Z'));
    expect(row?.metadata).toEqual({ team: 'payments' });
    expect(row?.oauth_scopes).toEqual([]);
  });

  it('keeps two organizations’ rows with the same id apart', async () => {
    expect((await findConnection(db, 'globex', 'con_a0'))?.organization_id).toBe('globex');
    expect(await findConnection(db, 'globex', 'con_a1')).toBeUndefined();
  });

  it('pages in creation order with the organization’s total', async () => {
    const page = await listConnections(db, 'acme', { limit: 2, offset: 2 });
    expect(page.total).toBe(5);
    expect(page.rows.map((r) => r.id)).toEqual(['con_a2', 'con_a3']);
  });

  it('deletes only within the organization', async () => {
    expect(await deleteConnection(db, 'globex', 'con_a4')).toBe(false);
    expect(await deleteConnection(db, 'acme', 'con_a4')).toBe(true);
    expect(await findConnection(db, 'acme', 'con_a4')).toBeUndefined();
  });

  it('refuses to delete a connection an integration still uses', async () => {
    await db
      .insertInto('integrations')
      .values({
        organization_id: 'acme',
        id: 'int_1',
        environment: 'default',
        name: 'mail',
        category: 'notifications',
        provider: 'cloud',
        provider_type: 'email',
        config: jsonColumn({ providerType: 'email', fromAddress: 'a@example.com' }),
        credentials_encrypted: null,
        connection_id: 'con_a3',
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute();
    await expect(deleteConnection(db, 'acme', 'con_a3')).rejects.toMatchObject({ code: '23503' });
    expect(await findConnection(db, 'acme', 'con_a3')).toBeDefined();
  });
});
