import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorDefinitionSchema } from '../../hub/src/contract/monitor-definition.js';
import { createHeartbeatService } from '../../hub/src/heartbeats/heartbeat.service.js';
import { expectedSlots } from '../../hub/src/ledger/expected-slots.js';
import { rollupHook } from '../../hub/src/metrics/rollup-hook.js';
import { ruleEvaluationHook } from '../../hub/src/notifications/rule-evaluation-hook.js';
import { desiredSchedules } from '../../hub/src/scheduling/schedules.js';
import { capturedLog } from '../harness/captured-log.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  createWebhookIntegration,
  eventsOf,
  recordingDeliveryQueue,
} from '../notifications/notification-fixtures.js';
import { handClock, heartbeatDefinition, mintToken, runsOf } from './heartbeat-fixtures.js';

// Heartbeat monitors end to end on a real PostgreSQL: declared through the API, pinged on the public endpoint,
// misses recorded by the hub's own pass, each as a run the rollups and notification rules see.
describe('heartbeat monitors', () => {
  let hub: TestHub;
  const clock = handClock();
  const deliveries = recordingDeliveryQueue();
  const hooks = [rollupHook, ruleEvaluationHook(deliveries)];
  const logged = capturedLog();
  let misses: ReturnType<typeof createHeartbeatService>;
  let firstToken = '';
  const ping = (path: string, init: RequestInit = {}) => fetch(`${hub.url}/ping/${path}`, init);

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null, clock, runFinishedHooks: hooks, log: logged.log });
    misses = createHeartbeatService({ db: hub.db, clock, hooks, log: logged.log });
  });
  afterAll(() => hub.close());

  it('is declared with a heartbeat and no nodes, stored at no location, and gets no schedule or slot', async () => {
    const created = await hub.request('PUT', '/monitor/backup', {
      body: heartbeatDefinition('nightly-backup'),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({ heartbeat: { grace_seconds: 30 }, nodes: [], edges: [], locations: [] });
    // What the API answers goes back in unchanged (apply, the operator and round trips compare definitions).
    const { id, createdAt, updatedAt, ...definition } = data;
    const again = await hub.request('PUT', '/monitor/backup', { body: { ...definition, version: '1.0' } });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { data: { updatedAt: string } }).data.updatedAt).toBe(updatedAt);

    const monitor = monitorDefinitionSchema.parse(heartbeatDefinition('x'));
    expect(desiredSchedules('acme', { ...monitor, id: 'x', createdAt: '', updatedAt: '' })).toEqual([]);
    const audited = {
      organization_id: 'acme',
      id: 'x',
      created_at: new Date(0),
      updated_at: new Date(0),
      frequency: monitor.frequency,
      locations: monitor.locations ?? null,
    };
    expect(expectedSlots(audited, new Set(['default']), 0, Date.now())).toEqual([]);
    expect(id).toBe('backup');
    expect(createdAt).toBeTypeOf('string');
  });

  it('refuses nodes, edges or locations on a heartbeat, and a check monitor without nodes, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [heartbeatDefinition('a', { nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }] }), 'nodes'],
      [heartbeatDefinition('b', { locations: ['default'] }), 'locations'],
      [heartbeatDefinition('c', { heartbeat: { grace_seconds: -1 } }), 'heartbeat.grace_seconds'],
      [heartbeatDefinition('d', { heartbeat: { grace: 5 } }), 'heartbeat.grace'],
      [{ ...heartbeatDefinition('e'), heartbeat: undefined }, 'nodes'],
    ];
    for (const [body, path] of cases) {
      const response = await hub.request('PUT', '/monitor/refused', { body });
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { code: string; details: Array<{ path: string }> };
      expect(answer.code).toBe('validation_failed');
      expect(answer.details.map((d) => d.path)).toContain(path);
    }
    expect((await hub.request('GET', '/monitor/refused')).status).toBe(404);
  });

  it('mints a token shown once, stores only its hash, and refuses other monitors and organizations', async () => {
    const token = await mintToken(hub, 'backup');
    firstToken = token;
    expect(token).toMatch(/^hb_[A-Za-z0-9_-]{43}$/);
    const row = await hub.db
      .selectFrom('heartbeats')
      .selectAll()
      .where('monitor_id', '=', 'backup')
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);

    await hub.request('PUT', '/monitor/check', {
      body: {
        ...heartbeatDefinition('check'),
        heartbeat: undefined,
        locations: ['default'],
        nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }],
      },
    });
    const notHeartbeat = await hub.request('POST', '/monitor/check/heartbeat-token');
    expect(notHeartbeat.status).toBe(409);
    expect(await notHeartbeat.json()).toMatchObject({ code: 'conflict', details: [{ path: 'heartbeat' }] });
    expect((await hub.request('POST', '/monitor/backup/heartbeat-token', { as: 'globexAdmin' })).status).toBe(
      404,
    );
    expect((await hub.request('POST', '/monitor/backup/heartbeat-token', { as: 'acmeViewer' })).status).toBe(
      403,
    );
    // A manual trigger has nothing to run.
    const triggered = await hub.request('POST', '/runs/trigger/backup', {
      body: { environment: 'production' },
    });
    expect(triggered.status).toBe(409);
  });

  it('records a passed run per ping, measures from /start, keeps the body as its note, fails on /fail', async () => {
    const token = await mintToken(hub, 'backup');
    expect((await ping(token)).status).toBe(200);
    expect((await ping(`${token}/start`, { method: 'POST' })).status).toBe(200);
    clock.advance(30_000);
    const done = await ping(token, {
      method: 'POST',
      body: 'backed up 3 GB',
      headers: { 'content-type': 'text/plain' },
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toBe('OK\n');
    clock.advance(10_000);
    expect(
      (
        await ping(`${token}/fail`, {
          method: 'POST',
          body: '{"exit":2}',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(200);

    const runs = await runsOf(hub, 'backup');
    expect(runs.map((r) => [r.status, r.location, r.triggered_by])).toEqual([
      ['completed', 'heartbeat', 'schedule'],
      ['completed', 'heartbeat', 'schedule'],
      ['failed', 'heartbeat', 'schedule'],
    ]);
    expect(runs[1]?.duration_ms).toBe(30_000);
    expect(runs[1]?.steps?.[0]).toMatchObject({
      type: 'HEARTBEAT',
      status: 'passed',
      note: 'backed up 3 GB',
    });
    expect(runs[2]?.errors).toEqual(['the job pinged /fail: it reported a failure']);
    expect(runs[2]?.steps?.[0]).toMatchObject({ note: '{"exit":2}' });
    // The earlier token no longer pings: minting replaced it.
    expect((await ping(firstToken)).status).toBe(401);
    expect(logged.text()).not.toContain(token);
  });

  it('answers an unknown or malformed token 401 and writes nothing', async () => {
    const before = (await runsOf(hub, 'backup')).length;
    expect((await ping(`hb_${'A'.repeat(43)}`)).status).toBe(401);
    expect((await ping('not-a-token/fail', { method: 'POST' })).status).toBe(401);
    expect((await ping(`hb_${'A'.repeat(43)}`, { method: 'DELETE' })).status).toBe(405);
    expect((await runsOf(hub, 'backup')).length).toBe(before);
  });

  it('fails one run per missed period with the last ping, once across hubs, and the run_failed rule fires', async () => {
    // Only this test's heartbeat is due: the earlier one goes (its ping state with it, by the foreign key).
    expect((await hub.request('DELETE', '/monitor/backup')).status).toBe(204);
    expect(await hub.db.selectFrom('heartbeats').select('monitor_id').execute()).toEqual([]);
    await createWebhookIntegration(hub, 'ops-hook', 'https://hooks.example/meerkat');
    const notified = heartbeatDefinition('reports', {
      notifications: [{ trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' } }],
    });
    expect((await hub.request('PUT', '/monitor/reports', { body: notified })).status).toBe(201);
    const token = await mintToken(hub, 'reports');
    // Before its first ping a new heartbeat is waiting, not missing.
    clock.advance(10 * 60_000);
    expect(await misses.recordMisses()).toBe(0);

    expect((await ping(token)).status).toBe(200);
    const pingedAt = clock.now().toISOString();
    clock.advance(89_000); // within the period (60 s) and grace (30 s)
    expect(await misses.recordMisses()).toBe(0);
    clock.advance(2_000);
    const other = createHeartbeatService({ db: hub.db, clock, hooks, log: logged.log });
    const counts = await Promise.all([misses.recordMisses(), other.recordMisses()]);
    expect(counts.sort()).toEqual([0, 1]);
    let runs = await runsOf(hub, 'reports');
    expect(runs.map((r) => r.status)).toEqual(['completed', 'failed']);
    expect(runs[1]?.errors).toEqual([
      `no ping within the period (1 min) and grace (30 s): last ping at ${pingedAt}`,
    ]);
    const [event] = await eventsOf(hub);
    expect(event).toMatchObject({ monitorId: 'reports', runId: runs[1]?.id });
    expect(deliveries.jobs.length).toBeGreaterThan(0);

    // The next miss is a period later, not at once; a hub away for 3 periods records them as one.
    clock.advance(50_000);
    expect(await misses.recordMisses()).toBe(0);
    clock.advance(3 * 60_000);
    expect(await misses.recordMisses()).toBe(1);
    runs = await runsOf(hub, 'reports');
    expect(runs[2]?.errors[0]).toMatch(/; 3 periods missed$/);
    expect(await misses.recordMisses()).toBe(0);
  });

  it('limits pings per token: a burst past 20 is answered 429 with Retry-After', async () => {
    expect(
      (await hub.request('PUT', '/monitor/chatty', { body: heartbeatDefinition('chatty') })).status,
    ).toBe(201);
    const token = await mintToken(hub, 'chatty');
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 21; i += 1) {
      const response = await ping(`${token}/start`);
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('retry-after');
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('never logs a token: request logs show /ping/[token]', () => {
    const pingLines = logged.lines.filter((line) => line.includes('/ping/'));
    expect(pingLines.length).toBeGreaterThan(0);
    for (const line of pingLines) expect(line).toMatch(/\/ping\/\[token\]/);
    expect(logged.text()).not.toMatch(/hb_[A-Za-z0-9_-]{43}/);
  });

  it('switching a heartbeat to a check monitor drops its ping state and token', async () => {
    const token = await mintToken(hub, 'chatty');
    const check = {
      ...heartbeatDefinition('chatty'),
      heartbeat: undefined,
      nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }],
    };
    expect((await hub.request('PUT', '/monitor/chatty', { body: check })).status).toBe(200);
    expect(
      await hub.db.selectFrom('heartbeats').selectAll().where('monitor_id', '=', 'chatty').execute(),
    ).toEqual([]);
    expect((await ping(token)).status).toBe(401);
  });
});
