import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEvent } from '../../hub/src/notifications/notification-event.repository.js';
import { startTestHub, type Caller, type TestHub } from '../harness/hub.js';
import { validMonitor } from '../monitors/fixtures.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

const result = (success: boolean) => ({
  success,
  errors: success ? [] : ['get: timed out after 30000 ms waiting for the response'],
  steps: [],
  durationMs: 30_000,
});

// DESIGN.md "Auth": reporting runs and deliveries and resolving secrets belong to role service, not admin.
describe('what only role service may do', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
    const monitor = validMonitor({ notifications: [] });
    expect((await hub.request('PUT', '/monitor/checkout', { body: monitor })).status).toBe(201);
    await hub.request('PUT', '/secrets/RUNNER_TOKEN', { body: { value: 'rt-1' } });
  });
  afterAll(() => hub.close());

  /** A pending run nobody consumes (the test hub's queue has no worker). */
  async function pendingRun(): Promise<string> {
    const triggered = await hub.request('POST', '/runs/trigger/checkout', {
      as: 'acmeEditor',
      body: { environment: 'production' },
    });
    return ((await triggered.json()) as { data: { id: string } }).data.id;
  }

  const runRow = (id: string) =>
    hub.db
      .selectFrom('runs')
      .select(['status', 'success', 'errors'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('answers 403 to an admin who starts a run or reports its result, and leaves the run as it was', async () => {
    const id = await pendingRun();
    const start = await hub.request('POST', `/runs/${id}/start`);
    expect(start.status).toBe(403);
    expect(await start.json()).toEqual({ error: 'role admin may not report runs', code: 'forbidden' });
    expect((await hub.request('POST', `/runs/${id}/start`, { as: 'acmeService' })).status).toBe(200);

    const forged = await hub.request('PUT', `/runs/${id}/result`, { body: result(true) });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toEqual({ error: 'role admin may not report runs', code: 'forbidden' });
    expect(await runRow(id)).toEqual({ status: 'running', success: null, errors: [] });
  });

  it('accepts the result of the service that runs the run once, and answers a second one with 409', async () => {
    const id = await pendingRun();
    expect((await hub.request('POST', `/runs/${id}/start`, { as: 'acmeService' })).status).toBe(200);
    const reported = await hub.request('PUT', `/runs/${id}/result`, {
      as: 'acmeService',
      body: result(false),
    });
    expect(reported.status).toBe(200);
    expect(await reported.json()).toMatchObject({ data: { id, status: 'failed', success: false } });

    const again = await hub.request('PUT', `/runs/${id}/result`, { as: 'acmeService', body: result(true) });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: `run ${id} already has its result (failed)`,
      code: 'conflict',
    });
    expect(await runRow(id)).toMatchObject({ status: 'failed', success: false });
  });

  it('answers 409 to a result for a run no runner has started', async () => {
    const id = await pendingRun();
    const early = await hub.request('PUT', `/runs/${id}/result`, { as: 'acmeService', body: result(true) });
    expect(early.status).toBe(409);
    expect(await early.json()).toEqual({
      error: `run ${id} is pending, not running: its runner must start it first`,
      code: 'conflict',
    });
    expect(await runRow(id)).toMatchObject({ status: 'pending', success: null });
  });

  it('lets exactly one of several concurrent results for a running run through', async () => {
    const id = await pendingRun();
    await hub.request('POST', `/runs/${id}/start`, { as: 'acmeService' });
    const answers = await Promise.all(
      [true, false, true, false].map((success) =>
        hub.request('PUT', `/runs/${id}/result`, { as: 'acmeService', body: result(success) }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
  });

  it('answers 403 to an admin who resolves a secret, and the value to a service', async () => {
    const resolve = (as: Caller) =>
      hub.request('POST', '/secrets/resolve', { as, body: { name: 'RUNNER_TOKEN', organizationId: 'acme' } });
    const byAdmin = await resolve('acmeAdmin');
    expect(byAdmin.status).toBe(403);
    expect(await byAdmin.json()).toEqual({ error: 'role admin may not resolve secrets', code: 'forbidden' });
    expect(await (await resolve('acmeService')).json()).toMatchObject({ data: { value: 'rt-1' } });
  });

  it('answers 403 to an admin who reports a delivery, and records the report of a service', async () => {
    await insertEvent(hub.db, {
      organization_id: 'acme',
      id: 'evt_roles',
      rule_id: null,
      monitor_id: 'checkout',
      run_id: null,
      trigger_reason: 'run failed in default',
      channels_notified: jsonColumn({
        webhook: { integrationId: 'int_roles', location: 'default', kind: 'webhook', channelType: 'webhook' },
      }),
      delivery_status: jsonColumn({ webhook: { status: 'pending' } }),
    });
    const report = (as: Caller) =>
      hub.request('PATCH', '/notifications/events/evt_roles', {
        as,
        body: { channelKey: 'webhook', status: { status: 'delivered', responseCode: 200 } },
      });
    const byAdmin = await report('acmeAdmin');
    expect(byAdmin.status).toBe(403);
    expect(await byAdmin.json()).toEqual({ error: 'role admin may not report events', code: 'forbidden' });
    const byService = await report('acmeService');
    expect(byService.status).toBe(200);
    expect(await byService.json()).toMatchObject({
      data: { deliveryStatus: { webhook: { status: 'delivered', responseCode: 200 } } },
    });
  });
});
