// The dry run of monitor writes that `meerkat apply` relies on: `?dryRun=true` on POST /monitor/ and
// PUT /monitor/{id} answers as the write would, refuses what the write would refuse, and keeps nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { seedIntegrationsForEveryChannel } from '../notifications/notification-fixtures.js';

const definition = {
  project: 'shop',
  name: 'dry',
  version: '1.0',
  environment: 'production',
  frequency: { every: 1, unit: 'HOUR' },
  nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }],
  edges: [],
  notifications: [{ trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' } }],
};

describe('monitor writes with dryRun=true', () => {
  let hub: TestHub;
  const state = async () => ({
    monitors: await hub.db.selectFrom('monitors').selectAll().where('organization_id', '=', 'acme').execute(),
    rules: await hub.db.selectFrom('notification_rules').select('id').execute(),
    outbox: await hub.db.selectFrom('schedule_outbox').select('monitor_id').execute(),
  });

  beforeAll(async () => {
    hub = await startTestHub();
    await seedIntegrationsForEveryChannel(hub.db, ['acme'], ['production']);
  });
  afterAll(() => hub.close());

  it('answers a create as the create would, 201 with the monitor, and stores nothing', async () => {
    const before = await state();
    const answer = await hub.request('POST', '/monitor/?dryRun=true', { as: 'acmeEditor', body: definition });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('location')).toBeNull();
    const { data } = (await answer.json()) as { data: { id: string; name: string } };
    expect(data.name).toBe('dry');
    expect(data.id).toMatch(/^mon_/);
    expect(await state()).toEqual(before);
  });

  it('refuses what the write would refuse, naming the field', async () => {
    const body = { ...definition, locations: ['mars'] };
    const answer = await hub.request('POST', '/monitor/?dryRun=true', { as: 'acmeEditor', body });
    expect(answer.status).toBe(400);
    const refusal = (await answer.json()) as {
      code: string;
      details: Array<{ path: string; message: string }>;
    };
    expect(refusal.code).toBe('validation_failed');
    expect(refusal.details[0]?.path).toBe('locations[0]');
    expect(refusal.details[0]?.message).toContain('unknown location "mars"');
    const noIntegration = { ...definition, environment: 'nowhere' };
    const refused = await hub.request('POST', '/monitor/?dryRun=true', {
      as: 'acmeEditor',
      body: noIntegration,
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { details: Array<{ path: string }> }).details[0]?.path).toMatch(
      /^notifications\[0\]/,
    );
  });

  it('answers a change of a stored monitor with what would be stored, and keeps the stored one', async () => {
    const created = await hub.request('POST', '/monitor/', { as: 'acmeEditor', body: definition });
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    const before = await state();
    const changed = { ...definition, frequency: { every: 2, unit: 'HOUR' } };
    const answer = await hub.request('PUT', `/monitor/${id}?dryRun=true`, {
      as: 'acmeEditor',
      body: changed,
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { frequency: unknown } }).data.frequency).toEqual({
      every: 2,
      unit: 'HOUR',
    });
    expect(await state()).toEqual(before);
    const clash = await hub.request('PUT', `/monitor/mon_00000000-0000-4000-8000-000000000000?dryRun=true`, {
      as: 'acmeEditor',
      body: definition,
    });
    expect(clash.status).toBe(409);
  });

  it('refuses a dryRun that is not true or false, and needs the write role', async () => {
    const bad = await hub.request('POST', '/monitor/?dryRun=yes', { as: 'acmeEditor', body: definition });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { details: Array<{ path: string }> }).details[0]?.path).toBe('dryRun');
    const viewer = await hub.request('POST', '/monitor/?dryRun=true', { as: 'acmeViewer', body: definition });
    expect(viewer.status).toBe(403);
  });
});
