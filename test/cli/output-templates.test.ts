// kubectl's `-o jsonpath=`, `-o custom-columns=`, `--sort-by` and `--no-headers` on every `get` resource, applied to
// the documents `-o yaml` prints; real CLI processes against the real API (docs/cli.md, ADR 0037).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';

const wait = { nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }], edges: [] };

describe('meerkat get -o jsonpath|custom-columns, --sort-by, --no-headers', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const ids: Record<string, string> = {};
  const meerkat = (...args: string[]) => runMeerkat(args, env);

  async function create(body: Record<string, unknown>) {
    const created = await hub.request('POST', '/monitor/', { as: 'acmeEditor', body });
    const { data } = (await created.json()) as { data: { id: string; name: string } };
    ids[data.name] = data.id;
  }

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-output-templates-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
    await create(
      monitorDefinition({ name: 'login-flow', frequency: { every: 10, unit: 'MINUTE' }, ...wait }),
    );
    await create(monitorDefinition({ name: 'checkout', frequency: { every: 1, unit: 'MINUTE' }, ...wait }));
    await create(monitorDefinition({ name: 'search', frequency: { every: 5, unit: 'MINUTE' }, ...wait }));
    const triggered = await hub.request('POST', `/runs/trigger/${ids.checkout}`, {
      as: 'acmeEditor',
      body: { environment: 'production' },
    });
    expect(triggered.status).toBe(201);
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('-o jsonpath prints the selected values of the List, space-separated', async () => {
    const { code, stdout } = await meerkat('get', 'monitors', '-o', 'jsonpath={.items[*].metadata.name}');
    expect(code).toBe(0);
    expect(stdout.split(' ').sort()).toEqual(['checkout', 'login-flow', 'search']);
  });

  it('-o jsonpath with range, quoted text and a filter', async () => {
    const ranged = await meerkat(
      'get',
      'monitors',
      '--sort-by=.metadata.name',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.spec.frequency.every}{"\\n"}{end}',
    );
    expect(ranged.stdout).toBe('checkout\t1\nlogin-flow\t10\nsearch\t5\n');
    const filtered = await meerkat(
      'get',
      'monitors',
      '-o',
      'jsonpath={.items[?(@.spec.frequency.every > 4)].status.monitorId}',
    );
    expect(filtered.stdout.split(' ').sort()).toEqual([ids['login-flow'], ids.search].sort());
  });

  it('-o jsonpath on one object, and on runs, events and integrations', async () => {
    const one = await meerkat('get', 'monitor', 'checkout', '-o', 'jsonpath={.status.monitorId}');
    expect(one.stdout).toBe(ids.checkout);
    const runs = await meerkat('get', 'runs', '-o', 'jsonpath={[*].monitorId}');
    expect(runs.code).toBe(0);
    expect(runs.stdout).toBe(ids.checkout);
    for (const resource of ['events', 'integrations', 'silences', 'maintenancewindows']) {
      const empty = await meerkat('get', resource, '-o', 'jsonpath={[*].id}');
      expect(empty.code, resource).toBe(0);
      expect(empty.stdout, resource).toBe('');
    }
  });

  it('-o custom-columns prints a header and a row per object, <none> for a missing field', async () => {
    const { code, stdout } = await meerkat(
      'get',
      'monitors',
      '--sort-by=.spec.frequency.every',
      '-o',
      'custom-columns=NAME:.metadata.name,EVERY:.spec.frequency.every,TEAM:.metadata.labels.team',
    );
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'NAME         EVERY   TEAM',
        'checkout     1       <none>',
        'search       5       <none>',
        'login-flow   10      <none>',
        '',
      ].join('\n'),
    );
    const runs = await meerkat(
      'get',
      'runs',
      '-o',
      'custom-columns=MONITOR:.monitorId,WHERE:.location',
      '--no-headers',
    );
    expect(runs.stdout).toBe(`${ids.checkout}   default\n`);
  });

  it('--sort-by orders the table by a number or a text, and --no-headers drops the header', async () => {
    const byEvery = await meerkat('get', 'monitors', '--sort-by={.spec.frequency.every}', '--no-headers');
    expect(byEvery.code).toBe(0);
    const namesOf = (stdout: string) =>
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/\s+/)[3]);
    expect(namesOf(byEvery.stdout)).toEqual(['checkout', 'search', 'login-flow']);
    const byName = await meerkat('get', 'monitors', '--sort-by=.metadata.name', '-o', 'name');
    expect(byName.stdout).toBe(
      ['checkout', 'login-flow', 'search'].map((name) => `monitor/${ids[name]}\n`).join(''),
    );
    const withHeader = await meerkat('get', 'runs', '--sort-by=.createdAt');
    expect(withHeader.stdout.split('\n')[0]).toMatch(/^ID\s+MONITOR/);
    const noHeader = await meerkat('get', 'runs', '--no-headers');
    expect(noHeader.stdout).toMatch(/^run_\S+\s+checkout\s+default/);
  });

  it('a bad expression is one line on stderr and exit 2, before the hub is asked', async () => {
    const unreachable = { ...env, MEERKAT_URL: 'http://127.0.0.1:9' };
    for (const args of [
      ['-o', 'jsonpath={.items['],
      ['-o', 'jsonpath={range .items[*]}{.metadata.name}'],
      ['-o', 'jsonpath={.items[?(@.x ==)]}'],
      ['-o', 'custom-columns=NAME'],
      ['-o', 'custom-columns=NAME:.metadata..'],
      ['--sort-by', '.spec['],
    ]) {
      const { code, stderr, stdout } = await runMeerkat(['get', 'monitors', ...args], unreachable);
      expect(code, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      expect(stderr).toMatch(/^meerkat: (-o jsonpath|-o custom-columns|--sort-by): /);
    }
  });
});
