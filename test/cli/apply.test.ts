import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { seedIntegrationsForEveryChannel } from '../notifications/notification-fixtures.js';
import { runMeerkat } from '../harness/processes.js';

const samples = new URL('../../config/samples/monitors/', import.meta.url).pathname;

describe('meerkat apply and meerkat get monitors', () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const meerkat = (...args: string[]) => runMeerkat(args, env);
  const snapshot = () =>
    hub.db
      .selectFrom('monitors')
      .select(['id', 'name', 'updated_at'])
      .where('organization_id', '=', 'acme')
      .orderBy('name')
      .execute();

  beforeAll(async () => {
    hub = await startTestHub();
    await seedIntegrationsForEveryChannel(hub.db);
    work = mkdtempSync(join(tmpdir(), 'meerkat-apply-'));
    cpSync(samples, join(work, 'monitors'), { recursive: true });
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor };
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('plans without writing on --dry-run', async () => {
    const { code, stdout } = await meerkat('apply', '-f', join(work, 'monitors'), '--dry-run');
    expect(code).toBe(0);
    expect(stdout).toContain('monitor shop/production/login-flow would be created');
    expect(stdout).toContain(
      '3 monitor(s): 3 created, 0 changed, 0 unchanged, 0 deleted (dry run: nothing was changed)',
    );
    expect(await snapshot()).toEqual([]);
  });

  it('creates the samples, and a second run reports everything unchanged and writes nothing', async () => {
    const first = await meerkat('apply', '-f', join(work, 'monitors'));
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/monitor shop\/production\/checkout-backends created \(mon_[0-9a-f-]+\)/);
    const afterFirst = await snapshot();
    expect(afterFirst.map((m) => m.name)).toEqual(['checkout-backends', 'github-status', 'login-flow']);

    const second = await meerkat('apply', '-f', join(work, 'monitors'));
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('3 monitor(s): 0 created, 0 changed, 3 unchanged, 0 deleted');
    expect(await snapshot()).toEqual(afterFirst);
  });

  it('shows a field-level diff for a change, applies it, and takes repeatable -f', async () => {
    const file = join(work, 'monitors', 'login-flow.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('every: 5, unit: MINUTE', 'every: 10, unit: MINUTE'),
    );
    const plan = await meerkat(
      'apply',
      '-f',
      file,
      '-f',
      join(work, 'monitors', 'public-json-api.yaml'),
      '--dry-run',
    );
    expect(plan.stdout).toMatch(
      /monitor shop\/production\/login-flow would be changed \(mon_[^)]+\)\n {4}frequency\.every: 5 -> 10\n/,
    );
    expect(plan.stdout).toContain('monitor platform/production/github-status unchanged');

    const applied = await meerkat('apply', '-f', file);
    expect(applied.stdout).toContain('1 monitor(s): 0 created, 1 changed, 0 unchanged, 0 deleted');
    const row = await hub.db
      .selectFrom('monitors')
      .select('definition')
      .where('name', '=', 'login-flow')
      .executeTakeFirstOrThrow();
    expect(row.definition.frequency).toEqual({ every: 10, unit: 'MINUTE' });
  });

  it('validates every document first and changes nothing when any is wrong', async () => {
    const bad = join(work, 'bad.yaml');
    writeFileSync(
      bad,
      [
        'project: shop',
        'name: fresh-and-valid',
        "version: '1.0'",
        'frequency: { every: 1, unit: HOUR }',
        'nodes: [{ id: w, type: WAIT, duration_ms: 10 }]',
        'edges: []',
        '---',
        'apiVersion: meerkat.dev/v1alpha1',
        'kind: Monitor',
        'metadata: { name: broken, namespace: shop }',
        "spec: { version: '1.0', frequency: { every: 1, unit: HOUR }, nodes: [{ id: a, type: HTTP_REQUEST, method: FETCH, base: x, path: y, response_format: JSON }], edges: [] }",
      ].join('\n'),
    );
    const before = await snapshot();
    const { code, stderr } = await meerkat('apply', '-f', bad, '-f', join(work, 'monitors'));
    expect(code).toBe(1);
    expect(stderr).toContain(`${bad}:2: spec.nodes[0].method: Invalid option`);
    expect(stderr).toContain('meerkat apply: 1 problem(s); nothing was changed');
    expect(await snapshot()).toEqual(before);
  });

  it('reports what the hub refuses with the document and field', async () => {
    const file = join(work, 'mars.yaml');
    writeFileSync(
      file,
      "project: shop\nname: on-mars\nversion: '1.0'\nfrequency: { every: 1, unit: HOUR }\nlocations: [mars]\nnodes: [{ id: w, type: WAIT, duration_ms: 1 }]\nedges: []\n",
    );
    const { code, stderr } = await meerkat('apply', '-f', file);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `${file}:1: locations[0]: unknown location "mars" (configured: default, eu-west, us-east)`,
    );
  });

  it('prunes monitors of the project that the files no longer define', async () => {
    const keep = join(work, 'monitors', 'login-flow.yaml');
    expect((await meerkat('apply', '-f', keep, '--prune')).stderr).toContain('--prune needs --project');
    const plan = await meerkat('apply', '-f', keep, '--prune', '--project', 'shop', '--dry-run');
    expect(plan.stdout).toMatch(
      /monitor shop\/production\/checkout-backends would be deleted \(mon_[^,]+, no longer defined\)/,
    );
    const pruned = await meerkat('apply', '-f', keep, '--prune', '--project', 'shop');
    expect(pruned.stdout).toContain('2 monitor(s): 0 created, 0 changed, 1 unchanged, 1 deleted');
    expect((await snapshot()).map((m) => m.name)).toEqual(['github-status', 'login-flow']);
  });

  it('prints monitors as a table', async () => {
    const { code, stdout } = await meerkat('get', 'monitors', '--project', 'shop');
    expect(code).toBe(0);
    const [header, ...rows] = stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+PROJECT\s+ENVIRONMENT\s+NAME\s+EVERY\s+LOCATIONS\s+UPDATED$/);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^mon_\S+\s+shop\s+production\s+login-flow\s+10 minutes\s+default\s+\d{4}-/);
  });

  it('needs an API key', async () => {
    const { code, stderr } = await runMeerkat(['get', 'monitors'], { MEERKAT_URL: hub.url });
    expect(code).toBe(2);
    expect(stderr).toBe(
      'meerkat: invalid setting MEERKAT_API_KEY: is required: the API key the commands act with (see `meerkat keygen`)\n',
    );
  });
});
