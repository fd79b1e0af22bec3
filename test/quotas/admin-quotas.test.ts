// Per-organization quota overrides through the admin API, against the real API and PostgreSQL: only an admin of
// PLATFORM_ADMIN_ORGANIZATION may set them, they are stored in organization_quotas, and they take effect at once.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_QUOTAS } from '../../hub/src/quotas/organization-quotas.js';
import { eventually } from '../harness/eventually.js';
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

  describe('If-Match on the overrides (docs/adr/0046-monitor-etags.md)', () => {
    const path = '/admin/organizations/etag-org/quotas';
    const asAdmin = (method: string, ifMatch?: string, body?: unknown) =>
      hub.request(method, path, {
        as: 'platformAdmin',
        body,
        headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
      });
    const backendsWaitingOnLocks = async () =>
      Number(
        (
          await sql<{ waiting: string }>`
            select count(*) as waiting from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(hub.db)
        ).rows[0]?.waiting,
      );
    const storedOverrides = async () =>
      (
        await hub.db
          .selectFrom('organization_quotas')
          .select('overrides')
          .where('organization_id', '=', 'etag-org')
          .executeTakeFirst()
      )?.overrides;

    it('answers a strong ETag that changes with the overrides and not with the usage', async () => {
      const before = await asAdmin('GET');
      const tag = before.headers.get('etag');
      expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect((await asAdmin('GET')).headers.get('etag')).toBe(tag);
      const written = await asAdmin('PUT', tag ?? undefined, { monitors: 7 });
      expect(written.status).toBe(200);
      const after = written.headers.get('etag');
      expect(after).not.toBe(tag);
      expect((await asAdmin('GET')).headers.get('etag')).toBe(after);
    });

    it('refuses a stale tag with 412 naming If-Match and writes nothing, PUT and DELETE alike', async () => {
      const stale = (await asAdmin('GET')).headers.get('etag') ?? '';
      expect((await asAdmin('PUT', stale, { monitors: 8 })).status).toBe(200);
      for (const [method, body] of [
        ['PUT', { monitors: 9 }],
        ['DELETE', undefined],
      ] as const) {
        const refused = await asAdmin(method, stale, body);
        expect(refused.status).toBe(412);
        expect(await refused.json()).toMatchObject({
          code: 'precondition_failed',
          details: [{ path: 'If-Match' }],
        });
        expect(await storedOverrides()).toEqual({ monitors: 8 });
      }
      expect((await asAdmin('PUT', '"not-a-tag', { monitors: 9 })).status).toBe(400);
      expect((await asAdmin('PUT', 'W/' + stale, { monitors: 9 })).status).toBe(412);
      expect(await storedOverrides()).toEqual({ monitors: 8 });
    });

    it('lets exactly one of two writes naming one version through', async () => {
      expect((await asAdmin('PUT', undefined, { monitors: 10 })).status).toBe(200);
      const tag = (await asAdmin('GET')).headers.get('etag') ?? '';
      // The test holds the stored row while both writes start, so both have read and checked before either can
      // write: without the hub's overrides lock both would then go ahead.
      const { racing } = await hub.db.transaction().execute(async (tx) => {
        await tx
          .selectFrom('organization_quotas')
          .select('organization_id')
          .where('organization_id', '=', 'etag-org')
          .forUpdate()
          .execute();
        const racing = Promise.all([
          asAdmin('PUT', tag, { monitors: 11 }),
          asAdmin('PUT', tag, { monitors: 12 }),
        ]);
        await eventually('both writes waiting on a lock', async () => (await backendsWaitingOnLocks()) >= 2);
        return { racing }; // awaited after the commit: the writes wait on this transaction
      });
      const answers = await racing;
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
      const winner = answers.findIndex((answer) => answer.status === 200);
      expect(await storedOverrides()).toEqual({ monitors: winner === 0 ? 11 : 12 });
    });

    it('takes * as any version, the defaults included, and deletes under the current tag', async () => {
      const current = (await asAdmin('GET')).headers.get('etag') ?? '';
      expect((await asAdmin('DELETE', current)).status).toBe(204);
      expect(await storedOverrides()).toBeUndefined();
      expect((await asAdmin('PUT', '*', { monitors: 13 })).status).toBe(200);
      expect(await storedOverrides()).toEqual({ monitors: 13 });
    });
  });
});
