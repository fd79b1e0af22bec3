import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MONITOR_SCHEMA_VERSION,
  monitorDefinitionSchema,
} from '../../hub/src/contract/monitor-definition.js';
import type { Run } from '../../hub/src/contract/run.js';
import type { Db } from '../../hub/src/db/database.js';
import { upsertMonitorRow } from '../../hub/src/monitors/monitor.repository.js';
import {
  insertEvent,
  mergeDeliveryStatus,
} from '../../hub/src/notifications/notification-event.repository.js';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import type { RunFinishedHook } from '../../hub/src/runs/run-finished.js';
import { insertRuns, type RunRow } from '../../hub/src/runs/run.repository.js';
import { systemClock } from '../../hub/src/system/clock.js';
import { createWorkerExecutor } from '../../hub/src/worker/worker-executor.js';
import { startWorker } from '../../hub/src/server/start-worker.js';
import { loopbackEgress } from '../harness/egress.js';
import { databaseEngines } from '../harness/engines.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { noSecrets } from '../runner/monitor-builders.js';
import { ESCAPED_ACTUALS, hostileMonitor, startHostileTarget, storedActuals } from './hostile-target.js';
import { silentLog, testComponents, testRunQueue, workerSettings } from './run-fixtures.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

const CANARY = 'CANARY-Zq7xW9pLk2Vt';

describe.each(databaseEngines)('a run whose target answers NUL or a lone surrogate, on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;
  let target: { url: string; close(): Promise<void> };
  const runner = createMonitorRunner({ egress: loopbackEgress });

  beforeAll(async () => {
    ({ db, dispose } = await engine.open());
    target = await startHostileTarget();
    const definition = monitorDefinitionSchema.parse(hostileMonitor(target.url));
    await db.transaction().execute((tx) =>
      upsertMonitorRow(tx, {
        organization_id: 'acme',
        id: 'hostile',
        project: definition.project,
        environment: definition.environment,
        name: definition.name,
        schema_version: MONITOR_SCHEMA_VERSION,
        definition: jsonColumn(definition),
        created_at: new Date(),
        updated_at: new Date(),
      }),
    );
  });
  afterAll(async () => {
    await runner.close();
    await target.close();
    await dispose();
  });

  async function executeRun(id: string, hooks: RunFinishedHook[] = []) {
    const [pending] = await insertRuns(db, [
      {
        organization_id: 'acme',
        id,
        monitor_id: 'hostile',
        execution_group_id: 'grp',
        location: 'default',
        environment: 'production',
        status: 'pending',
        triggered_by: 'manual',
        schedule_slot: null,
        errors: jsonColumn([]),
      },
    ]);
    const executor = createWorkerExecutor({
      db,
      runner,
      secrets: noSecrets,
      clock: systemClock,
      log: silentLog,
      hooks,
    });
    await executor.execute(pending as RunRow, new AbortController().signal);
    return db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('finishes the run as its assertions say and stores NUL as the text \\u0000, a lone surrogate as U+FFFD', async () => {
    const row = await executeRun('run_hostile');
    expect(row.status).toBe('failed');
    expect(storedActuals(row)).toEqual(ESCAPED_ACTUALS);
    expect(row.errors).toEqual([
      'check: text text EQUAL "xy", got "x\\u0000y"',
      'check: json body $.v EQUAL "ab", got "a\\u0000b"',
      'check: lone body $.v EQUAL "!", got "\\ud800!"',
    ]);
  });

  it('fails a run whose result the database still refuses, saying why, instead of leaving it running', async () => {
    let refusals = 0;
    // The database's own refusal of NUL ("null character not permitted"), once, where the result is written.
    const refusingOnce: RunFinishedHook = {
      name: 'refusing-once',
      async onRunsFinished(tx) {
        if (refusals++ === 0) await sql`select chr(0)`.execute(tx);
      },
    };
    const row = await executeRun('run_refused', [refusingOnce]);
    expect(row).toMatchObject({
      status: 'failed',
      success: false,
      steps: null,
      errors: [
        'run failed by the system: its result could not be stored (the database refused it: null character not permitted (SQLSTATE 54000))',
      ],
    });
  });

  it('stores an event whose reason and delivery error quote NUL', async () => {
    const event = await insertEvent(db, {
      organization_id: 'acme',
      id: 'evt_hostile',
      rule_id: null,
      monitor_id: 'hostile',
      run_id: 'run_hostile',
      trigger_reason: 'run failed in default: got "x\u0000y"',
      channels_notified: jsonColumn({
        webhook: { integrationId: 'int_hostile', location: 'default', kind: 'webhook', note: 'a\u0000b' },
      }),
      delivery_status: jsonColumn({ webhook: { status: 'pending' } }),
    });
    expect(event.trigger_reason).toBe('run failed in default: got "x\\u0000y"');
    const merged = await mergeDeliveryStatus(
      db,
      'acme',
      'evt_hostile',
      'webhook',
      { status: 'failed', error: 'receiver said \ud800\u0000' },
      { reply: 'x\u0000' },
    );
    expect(merged?.delivery_status).toMatchObject({ webhook: { error: 'receiver said \uFFFD\\u0000' } });
    expect(merged?.channels_notified).toMatchObject({ webhook: { note: 'a\\u0000b', reply: 'x\\u0000' } });
  });
});

describe('hostile answers through the API, with a worker (PostgreSQL)', () => {
  let hub: TestHub;
  let target: { url: string; close(): Promise<void> };
  const queue = testRunQueue();
  let worker: { close(): Promise<void> };

  beforeAll(async () => {
    target = await startHostileTarget();
    hub = await startTestHub({ runQueue: queue });
    worker = startWorker({
      settings: workerSettings(),
      log: silentLog,
      components: testComponents(hub.db, queue, hub.secrets),
      locations: ['default'],
      concurrency: 2,
    });
  });
  afterAll(async () => {
    await worker.close();
    await queue.close();
    await hub.close();
    await target.close();
  });

  async function runToEnd(monitorId: string, monitor: unknown) {
    expect((await hub.request('PUT', `/monitor/${monitorId}`, { body: monitor })).status).toBe(201);
    const triggered = await hub.request('POST', `/runs/trigger/${monitorId}`, {
      body: { environment: 'production' },
    });
    const { data } = (await triggered.json()) as { data: { id: string } };
    return eventually(async () => {
      const run = ((await (await hub.request('GET', `/runs/${data.id}`)).json()) as { data: Run }).data;
      return run.status === 'completed' || run.status === 'failed' ? run : undefined;
    });
  }

  it('finishes a run whose answers hold NUL and shows the escaped text', async () => {
    const run = await runToEnd('hostile', hostileMonitor(target.url));
    expect(run.status).toBe('failed');
    expect(storedActuals(run)).toEqual(ESCAPED_ACTUALS);
  });

  it('never quotes any piece of a secret the target echoed as a body that is not JSON', async () => {
    await hub.request('PUT', '/secrets/canary', { body: { value: CANARY, environment: 'production' } });
    const run = await runToEnd('echo', {
      project: 'shop',
      name: 'echo',
      version: '1.0',
      environment: 'production',
      frequency: { every: 1, unit: 'HOUR' },
      nodes: [
        {
          id: 'call',
          type: 'HTTP_REQUEST',
          method: 'GET',
          base: target.url,
          path: '/echo',
          headers: { Authorization: { $secret: { ref: 'canary' } } },
          response_format: 'JSON',
        },
      ],
      edges: [],
    });
    const steps = run.steps as Array<{ error?: string }>;
    expect(steps[0]?.error).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/echo: the response \(status 200\) is not valid JSON: unexpected character at line 1, column 1 \(position 0\)$/,
    );
    const stored = JSON.stringify(
      await hub.db.selectFrom('runs').selectAll().where('id', '=', run.id).execute(),
    );
    for (const text of [JSON.stringify(run), stored])
      for (let i = 0; i + 4 <= CANARY.length; i += 1) expect(text).not.toContain(CANARY.slice(i, i + 4));
  });
});
