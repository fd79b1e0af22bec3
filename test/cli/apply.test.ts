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
    env = {
      MEERKAT_URL: hub.url,
      MEERKAT_API_KEY: hub.keys.acmeEditor,
      MEERKAT_CONFIG: join(work, 'no-config.yaml'),
    };
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('plans without writing on --dry-run, with the hub checking every document', async () => {
    const { code, stdout } = await meerkat('apply', '-f', join(work, 'monitors'), '--dry-run');
    expect(code).toBe(0);
    expect(stdout).toContain('monitor shop/production/login-flow would be created');
    expect(stdout).toContain(
      '3 monitor(s): 3 created, 0 changed, 0 unchanged, 0 deleted (dry run: the hub accepted every document; nothing was changed)',
    );
    expect(await snapshot()).toEqual([]);
    const client = await meerkat('apply', '-f', join(work, 'monitors'), '--dry-run=client');
    expect(client.stdout).toContain('(dry run: nothing was changed)');
  });

  it('exits 1 on --diff-exit-code when there are changes, as kubectl diff does', async () => {
    const planned = await meerkat(
      'apply',
      '-f',
      join(work, 'monitors'),
      '--dry-run=server',
      '--diff-exit-code',
    );
    expect(planned.code).toBe(1);
    expect(planned.stderr).toBe('');
    expect(await snapshot()).toEqual([]);
  });

  it('creates the samples, and a second run reports everything unchanged, writes nothing and exits 0 on --diff-exit-code', async () => {
    const first = await meerkat('apply', '-f', join(work, 'monitors'));
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/monitor shop\/production\/checkout-backends created \(mon_[0-9a-f-]+\)/);
    const afterFirst = await snapshot();
    expect(afterFirst.map((m) => m.name)).toEqual(['checkout-backends', 'github-status', 'login-flow']);

    const second = await meerkat('apply', '-f', join(work, 'monitors'), '--diff-exit-code');
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
    expect(code).toBe(2);
    expect(stderr).toContain(`${bad}:2: spec.nodes[0].method: Invalid option`);
    expect(stderr).toContain('meerkat apply: 1 problem(s); nothing was changed');
    expect(await snapshot()).toEqual(before);
  });

  it('reports what the hub refuses once, with the document and field, and changes nothing at all', async () => {
    const file = join(work, 'mars.yaml');
    writeFileSync(
      file,
      "project: shop\nname: a-new-one\nversion: '1.0'\nfrequency: { every: 1, unit: HOUR }\nnodes: [{ id: w, type: WAIT, duration_ms: 1 }]\nedges: []\n---\n" +
        "project: shop\nname: on-mars\nversion: '1.0'\nfrequency: { every: 1, unit: HOUR }\nlocations: [mars]\nnodes: [{ id: w, type: WAIT, duration_ms: 1 }]\nedges: []\n",
    );
    const before = await snapshot();
    for (const dryRun of [[], ['--dry-run']]) {
      const { code, stdout, stderr } = await meerkat('apply', '-f', file, ...dryRun);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toBe(
        `${file}:2: locations[0]: unknown location "mars" (configured: default, eu-west, us-east)\n` +
          'meerkat apply: the hub refused 1 document(s); nothing was changed\n',
      );
    }
    expect(await snapshot()).toEqual(before);
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

  it('prints monitors as a table with their health and last run, wider with -o wide', async () => {
    const { code, stdout } = await meerkat('get', 'monitors', '--project', 'shop');
    expect(code).toBe(0);
    const [header, ...rows] = stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+PROJECT\s+ENVIRONMENT\s+NAME\s+EVERY\s+HEALTH\s+LAST RUN$/);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^mon_\S+\s+shop\s+production\s+login-flow\s+10 minutes\s+\S+\s+<none>$/);
    const wide = await meerkat('get', 'monitors', '--project', 'shop', '-o', 'wide');
    expect(wide.stdout.split('\n')[0]).toMatch(/HEALTH\s+LAST RUN\s+SUCCESS\s+P95\s+LOCATIONS\s+UPDATED$/);
  });

  it('needs an API key, from the environment or a context', async () => {
    const config = join(work, 'no-config.yaml');
    const { code, stderr } = await runMeerkat(['get', 'monitors'], {
      MEERKAT_URL: hub.url,
      MEERKAT_CONFIG: config,
    });
    expect(code).toBe(2);
    expect(stderr).toBe(
      `meerkat: invalid setting MEERKAT_API_KEY: is required: the API key the commands act with (see \`meerkat keygen\`), or a context in ${config} (see \`meerkat config\`)\n`,
    );
  });
});
