// A tenant's monitor that redirects to a Meerkat process (its API or its metrics, which name every organization's
// monitors) is refused at connect time, by the real processes: `meerkat dev`, and hub, scheduler and worker side
// by side, each told the others' ports through MEERKAT_ENDPOINTS as the chart tells them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import type { Run } from '../../hub/src/contract/run.js';
import {
  claimRedisDatabase,
  createTestDatabase,
  type ClaimedRedisDatabase,
  type TestDatabase,
} from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import { getNode, monitorDefinition } from '../harness/monitors.js';
import {
  startMeerkatDev,
  startMeerkatProcesses,
  type MeerkatDev,
  type MeerkatProcess,
} from '../harness/processes.js';
import { webhookSecret } from '../notifications/notification-fixtures.js';
import {
  redirectPath,
  startRedirectingServer,
  type RedirectingServer,
} from '../runner/redirecting-server.js';

// The processes start from TypeScript sources; on a loaded machine that takes minutes, not seconds.
const STARTUP_MS = 240_000;
const RUN_MS = 90_000;

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

function caller(api: string, key: string): Call {
  return async (method, path, body) => {
    const response = await fetch(api + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
}

/** Saves a monitor that GETs the redirecting server, which answers 302 towards `to`, runs it, returns the run. */
async function runRedirectTo(call: Call, server: RedirectingServer, name: string, to: string): Promise<Run> {
  const node = { ...getNode('probe', server.url, redirectPath(302, to)), follow_redirects: true };
  const saved = await call('PUT', `/monitor/${name}`, monitorDefinition({ name, nodes: [node] }));
  expect(saved.status, JSON.stringify(saved.body)).toBeLessThan(300);
  const { id } = (saved.body as { data: { id: string } }).data;
  const triggered = await call('POST', `/runs/trigger/${id}`, { environment: 'production' });
  const run = (triggered.body as { data: { id: string } }).data;
  return eventually(
    `the run of ${name}`,
    async () => {
      const { data } = (await call('GET', `/runs/${run.id}`)).body as { data: Run };
      return data.status === 'completed' || data.status === 'failed' ? data : undefined;
    },
    RUN_MS,
  );
}

/** The run failed on the redirect hop, by the egress policy, and nothing of the process's answer is in it. */
function expectRefused(run: Run, destination: string) {
  const port = new URL(destination).port;
  expect(run.success).toBe(false);
  expect(run.errors).toHaveLength(1);
  expect(run.errors[0]).toContain(
    `after 1 redirect(s), GET ${destination}: egress policy denies 127.0.0.1 port ${port}`,
  );
  expect(JSON.stringify(run.steps)).not.toContain('# HELP');
}

describe('a redirect to a process of meerkat dev', () => {
  let dev: MeerkatDev;
  let server: RedirectingServer;
  beforeAll(async () => {
    server = await startRedirectingServer();
    dev = await startMeerkatDev({}, STARTUP_MS);
  }, STARTUP_MS + 10_000);
  afterAll(async () => {
    await dev.stop();
    await server.close();
  });

  it.each(['api', 'metrics'] as const)(
    'is refused at connect time: its %s port',
    async (which) => {
      const destination = which === 'api' ? `${dev.api}/openapi.json` : dev.metricsUrl;
      const run = await runRedirectTo(caller(dev.api, dev.key), server, `to-dev-${which}`, destination);
      expectRefused(run, destination);
      expect(run.errors[0]).toMatch(/rule: the hub's own port/);
    },
    RUN_MS + 10_000,
  );
});

describe('a redirect to a process of a split deployment', () => {
  let database: TestDatabase;
  let redis: ClaimedRedisDatabase | undefined;
  let server: RedirectingServer;
  let processes: MeerkatProcess[] = [];
  let call: Call;
  const admin = generateApiKey();

  beforeAll(async () => {
    [database, redis, server] = await Promise.all([
      createTestDatabase({ migrated: true }),
      claimRedisDatabase(),
      startRedirectingServer(),
    ]);
    processes = await startMeerkatProcesses(
      {
        DATABASE_URL: database.url,
        REDIS_URL: redis.url,
        AUTH_API_KEYS: `acme:admin:${hashApiKey(admin)}`,
        SECRETS_KEY: 'ef'.repeat(32),
      },
      [
        { name: 'hub', args: ['hub'], ready: /hub API listening/ },
        { name: 'scheduler', args: ['scheduler'], ready: /scheduler running/ },
        { name: 'worker', args: ['worker', '--locations', 'default'], ready: /worker consuming runs/ },
      ],
      STARTUP_MS,
    );
    call = caller(processes[0]!.url, admin);
  }, STARTUP_MS + 10_000);
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await redis?.release();
    await server.close();
    await database.drop();
  });

  const cases = ['hub', 'scheduler', 'worker'].flatMap((name) =>
    (['api', 'metrics'] as const).map((which) => ({ name, which })),
  );
  it.each(cases)(
    'is refused at connect time: the $name $which port',
    async ({ name, which }) => {
      const target = processes.find((p) => p.name === name)!;
      const destination = which === 'api' ? `${target.url}/healthz` : target.metricsUrl;
      const run = await runRedirectTo(call, server, `to-${name}-${which}`, destination);
      expectRefused(run, destination);
      // The worker knows the other processes' ports only from MEERKAT_ENDPOINTS.
      if (name !== 'worker') expect(run.errors[0]).toMatch(/rule: MEERKAT_ENDPOINTS 127\.0\.0\.1:\d+\)/);
    },
    RUN_MS + 10_000,
  );

  it("answers 400 when a monitor or a webhook names another process's port as written", async () => {
    const scheduler = processes.find((p) => p.name === 'scheduler')!;
    const monitor = await call(
      'PUT',
      '/monitor/direct',
      monitorDefinition({ name: 'direct', nodes: [getNode('get', scheduler.metricsUrl)] }),
    );
    expect(monitor.status).toBe(400);
    const refusal = monitor.body as { code: string; details: Array<{ path: string; message: string }> };
    expect(refusal.code).toBe('validation_failed');
    expect(refusal.details[0]?.path).toBe('nodes[0].base');
    expect(refusal.details[0]?.message).toMatch(/MEERKAT_ENDPOINTS 127\.0\.0\.1:/);
    const webhook = await call('POST', '/integrations', {
      name: 'to-metrics',
      config: { providerType: 'webhook', url: scheduler.metricsUrl.replace('127.0.0.1', 'localhost') },
      credentials: { signingSecret: webhookSecret },
    });
    expect(webhook.status).toBe(400);
    expect(webhook.body).toMatchObject({ details: [{ path: 'config.url' }] });
  });
});
