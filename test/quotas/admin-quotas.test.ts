// Per-organization quota overrides through the admin API, against the real API and PostgreSQL: only an admin of
// PLATFORM_ADMIN_ORGANIZATION may set them, they are stored in organization_quotas, and they take effect at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_QUOTAS } from '../../hub/src/quotas/organization-quotas.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { validMonitor } from '../monitors/fixtures.js';

describe('the admin API of quotas', () => {
  let hub: TestHub;
  const monitor = (name: string) =>
    validMonitor({ name, notifications: undefined, frequency: { every: 1, unit: 'MINUTE' } });

  beforeAll(async () => {
    hub = await startTestHub({
      quotas: {
        policy: { defaults: { ...NO_QUOTAS, monitors: 100 }, runRetentionDays: 30 },
        platformAdminOrganization: 'meerkat-platform',
      },
    });
  });
  afterAll(() => hub.close());

  it('answers 403 to an organization admin, its own quotas included, and writes nothing', async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { monitors: 1_000_000 }],
      ['DELETE', undefined],
    ] as const) {
      const answer = await hub.request(method, '/admin/organizations/acme/quotas', { as: 'acmeAdmin', body });
      expect(answer.status).toBe(403);
      expect(await answer.json()).toMatchObject({
        code: 'forbidden',
        error: expect.stringContaining('PLATFORM_ADMIN_ORGANIZATION') as unknown,
      });
    }
    expect((await hub.request('GET', '/admin/quotas', { as: 'acmeAdmin' })).status).toBe(403);
    expect(await hub.db.selectFrom('organization_quotas').selectAll().execute()).toEqual([]);
  });

  it('refuses a bad override naming the field, and stores nothing', async () => {
    for (const [body, path] of [
      [{ monitors: -1 }, 'monitors'],
      [{ runsKept: 1.5 }, 'runsKept'],
      [{ everything: 1 }, 'everything'],
    ] as const) {
      const answer = await hub.request('PUT', '/admin/organizations/acme/quotas', {
        as: 'platformAdmin',
        body,
      });
      expect(answer.status).toBe(400);
      const refusal = (await answer.json()) as { code: string; details: Array<{ path: string }> };
      expect(refusal.code).toBe('validation_failed');
      expect(refusal.details[0]?.path).toBe(path);
    }
    const badOrganization = await hub.request('GET', '/admin/organizations/no%20spaces/quotas', {
      as: 'platformAdmin',
    });
    expect(badOrganization.status).toBe(400);
    expect(await hub.db.selectFrom('organization_quotas').selectAll().execute()).toEqual([]);
  });

  it('overrides one organization at once, stored in PostgreSQL, and leaves the others at the defaults', async () => {
    expect((await hub.request('PUT', '/monitor/first', { body: monitor('first') })).status).toBe(201);
    const put = await hub.request('PUT', '/admin/organizations/acme/quotas', {
      as: 'platformAdmin',
      body: { monitors: 1, locationsPerMonitor: 3 },
    });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { data: unknown }).data).toMatchObject({
      organizationId: 'acme',
      defaults: { monitors: 100, locationsPerMonitor: 0 },
      overrides: { monitors: 1, locationsPerMonitor: 3 },
      effective: { monitors: 1, locationsPerMonitor: 3, runsKept: 0 },
      usage: { monitors: 1, runsKept: 1440 * 30, minFrequencySeconds: 60, locationsPerMonitor: 1 },
      updatedBy: expect.stringMatching(/^key:/) as unknown,
    });
    const stored = await hub.db.selectFrom('organization_quotas').selectAll().execute();
    expect(stored.map((row) => [row.organization_id, row.overrides])).toEqual([
      ['acme', { monitors: 1, locationsPerMonitor: 3 }],
    ]);

    const second = await hub.request('PUT', '/monitor/second', { body: monitor('second') });
    expect(second.status).toBe(403);
    expect(await second.json()).toMatchObject({
      code: 'quota_exceeded',
      details: [{ quota: 'monitors', limit: 1 }],
    });
    expect((await hub.request('GET', '/monitor/second')).status).toBe(404);
    // globex keeps the default of 100.
    expect(
      (await hub.request('PUT', '/monitor/second', { as: 'globexAdmin', body: monitor('second') })).status,
    ).toBe(201);

    const list = await hub.request('GET', '/admin/quotas', { as: 'platformAdmin' });
    expect(await list.json()).toMatchObject({
      data: [{ organizationId: 'acme', overrides: { monitors: 1, locationsPerMonitor: 3 } }],
      total: 1,
    });
  });

  it('goes back to the defaults when the overrides are deleted', async () => {
    const reset = await hub.request('DELETE', '/admin/organizations/acme/quotas', { as: 'platformAdmin' });
    expect(reset.status).toBe(204);
    expect(await hub.db.selectFrom('organization_quotas').selectAll().execute()).toEqual([]);
    expect((await hub.request('PUT', '/monitor/second', { body: monitor('second') })).status).toBe(201);
    const state = await hub.request('GET', '/admin/organizations/acme/quotas', { as: 'platformAdmin' });
    expect(await state.json()).toMatchObject({
      data: { overrides: {}, effective: { monitors: 100 }, usage: { monitors: 2 }, updatedBy: null },
    });
  });
});
