// `meerkat get`, `describe`, `trigger` and the exit codes every client command shares, as real CLI processes
// against the real API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freePort, runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';
import { seedIntegrationsForEveryChannel } from '../notifications/notification-fixtures.js';

const monitorBody = monitorDefinition({
  name: 'cart',
  frequency: { every: 1, unit: 'HOUR' },
  nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }],
});

// Each CLI process starts tsx and loads the sources: seconds apiece on a busy machine.
describe('meerkat get, describe and trigger', { timeout: 180_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  let monitorId: string;
  let runId: string;
  const meerkat = (...args: string[]) => runMeerkat(args, env);

  beforeAll(async () => {
    hub = await startTestHub();
    await seedIntegrationsForEveryChannel(hub.db);
    work = mkdtempSync(join(tmpdir(), 'meerkat-get-'));
    env = {
      MEERKAT_URL: hub.url,
      MEERKAT_API_KEY: hub.keys.acmeAdmin,
      MEERKAT_CONFIG: join(work, 'none.yaml'),
    };
    const created = await hub.request('POST', '/monitor/', { as: 'acmeEditor', body: monitorBody });
    monitorId = ((await created.json()) as { data: { id: string } }).data.id;
    // A run that failed at step `w` with a failed assertion, reported as a runner Job reports it.
    const triggered = await hub.request('POST', `/runs/trigger/${monitorId}`, {
      as: 'acmeEditor',
      body: { environment: 'production' },
    });
    runId = ((await triggered.json()) as { data: { id: string } }).data.id;
    expect((await hub.request('POST', `/runs/${runId}/start`, { as: 'acmeService' })).status).toBe(200);
    const reported = await hub.request('PUT', `/runs/${runId}/result`, {
      as: 'acmeService',
      body: {
        success: false,
        errors: ['w: the target answered 500'],
        steps: [
          {
            nodeId: 'w',
            status: 'failed',
            error: 'the target answered 500',
            assertions: [{ passed: false, message: 'status 500 is not EQUAL 200' }],
          },
        ],
        durationMs: 12,
      },
    });
    expect(reported.status).toBe(200);
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('prints one monitor by name as JSON, YAML or kind/id, and a list as a list', async () => {
    const json = await meerkat('get', 'monitor', 'cart', '-o', 'json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      kind: 'Monitor',
      spec: { name: 'cart', project: 'shop' },
      status: { monitorId },
    });
    const yaml = await meerkat('get', 'monitor', 'cart', '-o', 'yaml');
    expect(parseYaml(yaml.stdout)).toMatchObject({
      spec: { environment: 'production' },
      status: { monitorId },
    });
    expect((await meerkat('get', 'monitor', monitorId, '-o', 'name')).stdout).toBe(`monitor/${monitorId}\n`);
    const list = JSON.parse((await meerkat('get', 'monitors', '-o', 'json')).stdout) as {
      kind: string;
      items: Array<{ status: { monitorId: string } }>;
    };
    expect(list.kind).toBe('List');
    expect(list.items.map((m) => m.status.monitorId)).toEqual([monitorId]);
  });

  it('shows HEALTH and LAST RUN as GET /metrics/monitors/{id} gives them', async () => {
    const answer = await hub.request('GET', `/metrics/monitors/${monitorId}`, { as: 'acmeViewer' });
    const { data } = (await answer.json()) as {
      data: { status: string; lastRun: { success: boolean } | null };
    };
    const lastRun =
      data.lastRun === null ? '<none>' : `${data.lastRun.success ? 'pass' : 'fail'} \\d+[smh] ago`;
    const { stdout } = await meerkat('get', 'monitors');
    expect(stdout.split('\n')[0]).toMatch(/\sHEALTH\s+LAST RUN$/);
    expect(stdout.split('\n')[1]).toMatch(new RegExp(`\\scart\\s+1 hour\\s+${data.status}\\s+${lastRun}$`));
  });

  it('lists runs by monitor and status, and one run by id', async () => {
    const runs = await meerkat('get', 'runs', '--monitor', 'cart');
    expect(runs.code).toBe(0);
    expect(runs.stdout).toMatch(
      new RegExp(
        `^${runId}\\s+cart\\s+default\\s+failed\\s+fail\\s+12ms\\s+\\d+[smh]\\s+w: the target answered 500$`,
        'm',
      ),
    );
    expect((await meerkat('get', 'runs', '--status', 'failed', '-o', 'name')).stdout).toBe(`run/${runId}\n`);
    expect((await meerkat('get', 'runs', '--status', 'completed', '-o', 'json')).stdout).toBe('[]\n');
    expect(JSON.parse((await meerkat('get', 'run', runId, '-o', 'json')).stdout)).toMatchObject({
      id: runId,
    });
  });

  it('lists integrations and events', async () => {
    const integrations = await meerkat('get', 'integrations', '-o', 'wide');
    expect(integrations.stdout).toMatch(/^ID\s+NAME\s+ENVIRONMENT\s+TYPE\s+ENABLED\s+PROVIDER\s+CREATED$/m);
    expect(integrations.stdout).toMatch(/\sproduction\s+webhook\s+true\s/);
    const events = await meerkat('get', 'events');
    expect(events.code).toBe(0);
    expect(events.stdout + events.stderr).toMatch(/^(ID\s+MONITOR\s+REASON|No events found\.)/m);
  });

  it('describes a monitor with its last runs and their failing steps', async () => {
    const { code, stdout } = await meerkat('describe', 'monitor', 'cart');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Name:\s+cart$/m);
    expect(stdout).toMatch(/^Health \(24h\):\s+(healthy|degraded|failing)$/m);
    expect(stdout).toContain(`  ${runId}  default  fail in 12 ms`);
    expect(stdout).toContain('      w: the target answered 500\n        status 500 is not EQUAL 200\n');
  });

  it('triggers a run now and prints it; --wait gives up after --timeout with exit 1 when nobody runs it', async () => {
    const triggered = await meerkat('trigger', 'cart', '-o', 'name');
    expect(triggered.code).toBe(0);
    expect(triggered.stdout).toMatch(/^run\/run_\S+\n$/);
    const waited = await meerkat('trigger', 'cart', '--wait', '--timeout', '1');
    expect(waited.code).toBe(1);
    expect(waited.stderr).toBe('meerkat: runs still unfinished after 1 s\n');
  });

  it(
    'exits 1 for what is not there, 2 for usage, 3 when the hub is unreachable or refuses the key',
    {
      timeout: 180_000,
    },
    async () => {
      const missing = await meerkat('get', 'monitor', 'nope');
      expect([missing.code, missing.stderr]).toEqual([1, 'meerkat: monitor "nope" not found\n']);
      expect((await meerkat('get', 'runs', '--limit', '0')).code).toBe(2);
      expect((await meerkat('get', 'monitors', '--no-such-flag')).code).toBe(2);
      expect((await meerkat('get', 'monitors', '-o', 'xml')).code).toBe(2);
      const closed = `http://127.0.0.1:${await freePort()}`;
      const unreachable = await runMeerkat(['get', 'monitors'], { ...env, MEERKAT_URL: closed });
      expect(unreachable.code).toBe(3);
      expect(unreachable.stderr).toMatch(/^meerkat: cannot reach the hub \(.+\)\n$/);
      const refused = await runMeerkat(['get', 'monitors'], { ...env, MEERKAT_API_KEY: 'mk_not_a_key' });
      expect(refused.code).toBe(3);
      expect(refused.stderr.split('\n')).toHaveLength(2);
      const unreadable = await runMeerkat(['apply', '-f', join(work, 'none.yaml')], env);
      expect(unreadable.code).toBe(2);
    },
  );
});
