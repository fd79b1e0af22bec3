// `meerkat delete`, `diff`, `version`, `describe run` and `logs`, as real CLI processes against the real API.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';

const wait = { nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }], edges: [] };

describe('meerkat delete, diff, version, describe run and logs', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const meerkat = (...args: string[]) => runMeerkat(args, env);
  const monitorNames = async () =>
    (
      await hub.db
        .selectFrom('monitors')
        .select(['project', 'name'])
        .where('organization_id', '=', 'acme')
        .orderBy('project')
        .orderBy('name')
        .execute()
    ).map((m) => `${m.project}/${m.name}`);
  async function create(body: Record<string, unknown>): Promise<string> {
    const created = await hub.request('POST', '/monitor/', { as: 'acmeEditor', body });
    return ((await created.json()) as { data: { id: string } }).data.id;
  }

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-delete-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('version prints the client and the hub version; --client asks no hub', async () => {
    const both = await meerkat('version');
    expect(both.code).toBe(0);
    expect(both.stdout).toMatch(/^Client Version: \d+\.\d+\.\d+\nServer Version: \d+\.\d+\.\d+\n$/);
    const client = await meerkat('version', '--client', '--server', 'http://127.0.0.1:9', '-o', 'json');
    expect(client.code).toBe(0);
    expect(Object.keys(JSON.parse(client.stdout) as object)).toEqual(['clientVersion']);
  });

  it('diff -f shows what apply would change and exits 1; 0 when nothing differs; writes nothing', async () => {
    await create(monitorDefinition({ name: 'cart', ...wait }));
    const file = join(work, 'diff.yaml');
    const same = monitorDefinition({ name: 'cart', ...wait });
    writeFileSync(file, stringifyYaml(same));
    const unchanged = await meerkat('diff', '-f', file);
    expect([unchanged.code, unchanged.stdout, unchanged.stderr]).toEqual([0, '', '']);
    const changed = { ...same, frequency: { every: 10, unit: 'MINUTE' } };
    const added = monitorDefinition({ name: 'new-one', ...wait });
    writeFileSync(file, [changed, added].map((d) => stringifyYaml(d)).join('---\n'));
    const differs = await meerkat('diff', '-f', file);
    expect(differs.code).toBe(1);
    expect(differs.stdout).toMatch(
      /^monitor shop\/production\/cart would be changed \(mon_\S+\)\n {4}frequency\.every: 5 -> 10\nmonitor shop\/production\/new-one would be created\n$/,
    );
    expect(await monitorNames()).toEqual(['shop/cart']);
    const invalid = await meerkat('diff', '-f', join(work, 'missing.yaml'));
    expect(invalid.code).toBe(2);
  });

  it('delete removes monitors by name, by -f file, and all of a project with --all', async () => {
    await create(monitorDefinition({ name: 'a', ...wait }));
    await create(monitorDefinition({ name: 'b', ...wait }));
    await create(monitorDefinition({ project: 'billing', name: 'x', ...wait }));
    await create(monitorDefinition({ project: 'billing', name: 'y', ...wait }));
    const byName = await meerkat('delete', 'monitor', 'a');
    expect(byName.code).toBe(0);
    expect(byName.stdout).toMatch(/^monitor shop\/production\/a deleted \(mon_\S+\)\n$/);
    const file = join(work, 'b.yaml');
    writeFileSync(file, stringifyYaml(monitorDefinition({ name: 'b', ...wait })));
    expect((await meerkat('delete', '-f', file)).stdout).toMatch(/^monitor shop\/production\/b deleted/);
    const all = await meerkat('delete', 'monitors', '--project', 'billing', '--all');
    expect(all.code).toBe(0);
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(await monitorNames()).toEqual(['shop/cart']);
  });

  it('delete exits 1 for what is not there unless --ignore-not-found, 2 for a wrong request', async () => {
    const missing = await meerkat('delete', 'monitor', 'nope');
    expect([missing.code, missing.stderr]).toEqual([1, 'meerkat: monitor "nope" not found\n']);
    expect((await meerkat('delete', 'monitor', 'nope', '--ignore-not-found')).code).toBe(0);
    const noProject = await meerkat('delete', 'monitors', '--all');
    expect([noProject.code, noProject.stderr]).toEqual([2, 'meerkat: --all needs --project, and no names\n']);
    expect((await meerkat('delete', 'integration', 'x')).code).toBe(2);
    expect(await monitorNames()).toEqual(['shop/cart']);
  });

  it('describe run and logs show a run with its monitor’s name, its steps and why it failed', async () => {
    const monitorId = await create(monitorDefinition({ name: 'checkout' }));
    const triggered = await hub.request('POST', `/runs/trigger/${monitorId}`, {
      as: 'acmeEditor',
      body: { environment: 'production' },
    });
    const runId = ((await triggered.json()) as { data: { id: string } }).data.id;
    expect((await hub.request('POST', `/runs/${runId}/start`, { as: 'acmeService' })).status).toBe(200);
    const step = {
      nodeId: 'get',
      type: 'HTTP_REQUEST',
      status: 'failed',
      startedAt: '2026-01-10T11:50:00.000Z',
      durationMs: 42,
      error: 'GET http://127.0.0.1:9/: status 503',
      request: { method: 'GET', url: 'http://127.0.0.1:9/' },
      response: { status: 503, bytes: 11, excerpt: 'unavailable' },
      assertions: [{ passed: false, message: 'get status EQUAL 200, got 503' }],
    };
    const reported = await hub.request('PUT', `/runs/${runId}/result`, {
      as: 'acmeService',
      body: { success: false, errors: ['get: status 503'], steps: [step], durationMs: 42 },
    });
    expect(reported.status).toBe(200);

    const described = await meerkat('describe', 'run', runId);
    expect(described.code).toBe(0);
    expect(described.stdout).toContain(`Monitor:       checkout (${monitorId})\n`);
    expect(described.stdout).toMatch(/^Result:\s+fail$/m);
    expect(described.stdout).toContain('Errors:\n  get: status 503\n');
    expect(described.stdout).toContain(
      '  get: GET http://127.0.0.1:9/: status 503\n    get status EQUAL 200, got 503\n',
    );

    const logs = await meerkat('logs', runId);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toBe(
      [
        `# run ${runId} of monitor checkout (${monitorId}) in default: failed`,
        '2026-01-10T11:50:00.000Z  get  HTTP_REQUEST  failed  GET http://127.0.0.1:9/ -> 503 (11 B) in 42 ms',
        '    error: GET http://127.0.0.1:9/: status 503',
        '    FAILED: get status EQUAL 200, got 503',
        '    | unavailable',
        '',
      ].join('\n'),
    );
    const table = await meerkat('get', 'run', runId);
    expect(table.stdout).toMatch(
      new RegExp(
        `^${runId}\\s+checkout\\s+default\\s+failed\\s+fail\\s+42ms\\s+\\S+\\s+get: status 503$`,
        'm',
      ),
    );
    const list = await meerkat('get', 'runs', '--monitor', 'checkout');
    expect(list.stdout.split('\n')[0]).toMatch(/\sAGE\s+REASON$/);
    expect(list.stdout).toMatch(/\scheckout\s.*\sget: status 503$/m);
    const wrongKey = await runMeerkat(['get', 'runs'], {
      ...env,
      MEERKAT_API_KEY: 'mk_well_formed_but_unknown',
    });
    expect([wrongKey.code, wrongKey.stderr]).toEqual([
      3,
      'meerkat: the hub answered 401: API key is not known\n',
    ]);
    const missing = await meerkat('logs', 'run_nope');
    expect([missing.code, missing.stderr]).toEqual([1, 'meerkat: run run_nope not found\n']);
  });
});
