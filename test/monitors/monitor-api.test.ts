import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { seedIntegrationsForEveryChannel } from '../notifications/notification-fixtures.js';
import { sampleMonitors, validMonitor } from './fixtures.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

interface MonitorAnswer {
  data: { id: string; name: string; createdAt: string; updatedAt: string } & Record<string, unknown>;
}
interface PageAnswer {
  data: Array<{ id: string; name: string; project: string; environment: string }>;
  total: number;
  page: number;
  limit: number;
}

describe('the monitors API', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
    await seedIntegrationsForEveryChannel(hub.db);
  });
  afterAll(() => hub.close());

  it('PUT creates with 201, and the same body again answers 200 without changing updatedAt', async () => {
    const body = validMonitor({ name: 'idempotent' });
    const first = await hub.request('PUT', '/monitor/idem-1', { as: 'acmeEditor', body });
    expect(first.status).toBe(201);
    const created = (await first.json()) as MonitorAnswer;
    expect(created.data).toMatchObject({ id: 'idem-1', ...body });

    const second = await hub.request('PUT', '/monitor/idem-1', { as: 'acmeEditor', body });
    expect(second.status).toBe(200);
    const again = (await second.json()) as MonitorAnswer;
    expect(again.data.updatedAt).toBe(created.data.updatedAt);
    const row = await hub.db
      .selectFrom('monitors')
      .selectAll()
      .where('id', '=', 'idem-1')
      .executeTakeFirstOrThrow();
    expect(row.updated_at.toISOString()).toBe(created.data.updatedAt);
    expect(row.schema_version).toBe('1.0');
  });

  it('PUT with a change answers 200, moves updatedAt and keeps createdAt', async () => {
    const body = validMonitor({ name: 'changing' });
    const created = (await (await hub.request('PUT', '/monitor/chg-1', { body })).json()) as MonitorAnswer;
    const res = await hub.request('PUT', '/monitor/chg-1', {
      body: { ...body, frequency: { every: 10, unit: 'MINUTE' } },
    });
    expect(res.status).toBe(200);
    const changed = (await res.json()) as MonitorAnswer;
    expect(changed.data.frequency).toEqual({ every: 10, unit: 'MINUTE' });
    expect(changed.data.createdAt).toBe(created.data.createdAt);
    expect(Date.parse(changed.data.updatedAt)).toBeGreaterThan(Date.parse(created.data.updatedAt));
  });

  it('fills in the default environment', async () => {
    const { environment, ...body } = validMonitor({ name: 'defaults' });
    const res = await hub.request('PUT', '/monitor/defaults-1', { body });
    expect(((await res.json()) as MonitorAnswer).data.environment).toBe('default');
  });

  it('answers a second monitor with the same project, environment and name with 409 naming the first', async () => {
    const body = validMonitor({ name: 'unique-name' });
    expect((await hub.request('PUT', '/monitor/first', { body })).status).toBe(201);
    for (const [method, path] of [
      ['PUT', '/monitor/second'],
      ['POST', '/monitor/'],
    ] as const) {
      const res = await hub.request(method, path, { body });
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({
        error: 'monitor first already has the name "unique-name" in project "shop", environment "production"',
        code: 'conflict',
        details: [{ path: 'name', message: 'already used by monitor first' }],
      });
    }
    expect((await hub.request('GET', '/monitor/second')).status).toBe(404);
  });

  it('POST creates with a server-chosen id and a Location header', async () => {
    const res = await hub.request('POST', '/monitor/', { body: validMonitor({ name: 'posted' }) });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as MonitorAnswer;
    expect(data.id).toMatch(/^mon_[0-9a-f-]{36}$/);
    expect(res.headers.get('location')).toBe(`/monitor/${data.id}`);
    expect((await hub.request('GET', `/monitor/${data.id}`)).status).toBe(200);
  });

  it('DELETE answers 204 and removes the monitor with its runs and rules', async () => {
    await hub.request('PUT', '/monitor/doomed', { body: validMonitor({ name: 'doomed' }) });
    await hub.db
      .insertInto('runs')
      .values({
        organization_id: 'acme',
        id: 'run_1',
        monitor_id: 'doomed',
        execution_group_id: 'grp_1',
        location: 'default',
        environment: 'production',
        status: 'completed',
        triggered_by: 'manual',
        schedule_slot: null,
        started_at: null,
        completed_at: null,
        duration_ms: null,
        success: true,
        errors: jsonColumn([]),
        steps: null,
        browser: null,
      })
      .execute();
    const res = await hub.request('DELETE', '/monitor/doomed', { as: 'acmeEditor' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await hub.request('GET', '/monitor/doomed')).status).toBe(404);
    expect(await hub.db.selectFrom('runs').where('monitor_id', '=', 'doomed').selectAll().execute()).toEqual(
      [],
    );
    expect((await hub.request('DELETE', '/monitor/doomed')).status).toBe(404);
  });

  it('answers a viewer’s PUT, POST and DELETE with 403', async () => {
    await hub.request('PUT', '/monitor/guarded', { body: validMonitor({ name: 'guarded' }) });
    const put = await hub.request('PUT', '/monitor/guarded', {
      as: 'acmeViewer',
      body: validMonitor({ name: 'guarded' }),
    });
    const post = await hub.request('POST', '/monitor/', {
      as: 'acmeViewer',
      body: validMonitor({ name: 'other' }),
    });
    const del = await hub.request('DELETE', '/monitor/guarded', { as: 'acmeViewer' });
    expect([put.status, post.status, del.status]).toEqual([403, 403, 403]);
    expect((await hub.request('GET', '/monitor/guarded', { as: 'acmeViewer' })).status).toBe(200);
  });

  it('keeps organizations apart: the same id in two organizations, and 404 for the other’s', async () => {
    await hub.request('PUT', '/monitor/web-1', { as: 'acmeAdmin', body: validMonitor({ name: 'acme web' }) });
    const theirs = await hub.request('PUT', '/monitor/web-1', {
      as: 'globexAdmin',
      body: validMonitor({ name: 'globex web' }),
    });
    expect(theirs.status).toBe(201);
    const acme = (await (
      await hub.request('GET', '/monitor/web-1', { as: 'acmeAdmin' })
    ).json()) as MonitorAnswer;
    expect(acme.data.name).toBe('acme web');
    expect(
      (await hub
        .request('GET', '/monitor/?limit=100', { as: 'globexAdmin' })
        .then((r) => r.json())) as PageAnswer,
    ).toMatchObject({ total: 1 });
    await hub.request('PUT', '/monitor/acme-only', {
      as: 'acmeAdmin',
      body: validMonitor({ name: 'acme only' }),
    });
    expect((await hub.request('GET', '/monitor/acme-only', { as: 'globexAdmin' })).status).toBe(404);
    expect((await hub.request('DELETE', '/monitor/acme-only', { as: 'globexAdmin' })).status).toBe(404);
    const byName = await hub.request(
      'GET',
      '/monitor/by-name?project=shop&environment=production&name=acme%20only',
      { as: 'globexAdmin' },
    );
    expect(byName.status).toBe(404);
  });

  it('accepts every sample of config/samples/monitors', async () => {
    for (const sample of sampleMonitors()) {
      const res = await hub.request('POST', '/monitor/', { as: 'globexAdmin', body: sample });
      expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
    }
  });
});

describe('listing and finding monitors', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
    await seedIntegrationsForEveryChannel(hub.db);
    for (const project of ['alpha', 'beta']) {
      for (const environment of ['staging', 'production']) {
        for (let i = 0; i < 3; i += 1) {
          const body = validMonitor({ project, environment, name: `check-${i}` });
          await hub.request('PUT', `/monitor/${project}-${environment}-${i}`, { body });
        }
      }
    }
    await hub.request('PUT', '/monitor/gamma-1', {
      body: validMonitor({ project: 'gamma', environment: 'staging', name: 'check-0' }),
    });
  });
  afterAll(() => hub.close());

  const list = async (query: string) =>
    (await (await hub.request('GET', `/monitor/${query}`)).json()) as PageAnswer;

  it('pages with page and limit, sorted by project, environment and name', async () => {
    const first = await list('?limit=5');
    expect(first).toMatchObject({ total: 13, page: 0, limit: 5 });
    expect(first.data.map((m) => m.id)).toEqual([
      'alpha-production-0',
      'alpha-production-1',
      'alpha-production-2',
      'alpha-staging-0',
      'alpha-staging-1',
    ]);
    const third = await list('?limit=5&page=2');
    expect(third.data.map((m) => m.id)).toEqual(['beta-staging-1', 'beta-staging-2', 'gamma-1']);
    expect((await list('?page=9')).data).toEqual([]);
  });

  it('filters by project and environment', async () => {
    const both = await list('?project=beta&environment=staging');
    expect(both.total).toBe(3);
    expect(both.data.every((m) => m.project === 'beta' && m.environment === 'staging')).toBe(true);
    expect((await list('?environment=staging')).total).toBe(7);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['limit=ten', 'limit'],
    ['sort=name', 'sort'],
  ])('answers %s with 400 naming %s', async (query, path) => {
    const res = await hub.request('GET', `/monitor/?${query}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'validation_failed', details: [{ path }] });
  });

  it('finds a monitor by project, environment and name', async () => {
    const res = await hub.request('GET', '/monitor/by-name?project=beta&environment=production&name=check-1');
    expect(((await res.json()) as MonitorAnswer).data.id).toBe('beta-production-1');
    const latest = await hub.request(
      'GET',
      '/monitor/by-name?project=beta&environment=production&name=check-1&version=latest',
    );
    expect(((await latest.json()) as MonitorAnswer).data.id).toBe('beta-production-1');
  });

  it('reads by name with version=latest without writing the row', async () => {
    await hub.request('PUT', '/monitor/read-only-1', { body: validMonitor({ name: 'read-only' }) });
    // Any UPDATE of the row, even one that changes nothing, gives it a new xmin.
    const rowState = async () =>
      (
        await sql<{ xmin: string; updated_at: Date }>`
          select xmin::text as xmin, updated_at from monitors where id = 'read-only-1'`.execute(hub.db)
      ).rows;
    const before = await rowState();
    const res = await hub.request(
      'GET',
      '/monitor/by-name?environment=production&name=read-only&version=latest',
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as MonitorAnswer).data.id).toBe('read-only-1');
    expect(await rowState()).toEqual(before);
    expect(before).toHaveLength(1);
  });

  it('needs the project only when the name is used in several', async () => {
    const unique = await hub.request('GET', '/monitor/by-name?environment=production&name=check-2');
    expect(unique.status).toBe(400);
    expect(await unique.json()).toMatchObject({
      details: [{ path: 'project', message: expect.stringContaining('alpha, beta') as unknown }],
    });
    await hub.request('PUT', '/monitor/solo', {
      body: validMonitor({ project: 'delta', environment: 'qa', name: 'solo' }),
    });
    const solo = await hub.request('GET', '/monitor/by-name?environment=qa&name=solo');
    expect(((await solo.json()) as MonitorAnswer).data.id).toBe('solo');
  });

  it('answers a missing name with 400, an unknown one with 404 and an unknown version with 400', async () => {
    expect(await (await hub.request('GET', '/monitor/by-name?project=beta')).json()).toMatchObject({
      details: [{ path: 'name', message: 'required' }],
    });
    expect((await hub.request('GET', '/monitor/by-name?project=beta&name=nope')).status).toBe(404);
    const version = await hub.request('GET', '/monitor/by-name?project=beta&name=check-1&version=newest');
    expect(await version.json()).toMatchObject({ details: [{ path: 'version' }] });
  });
});
