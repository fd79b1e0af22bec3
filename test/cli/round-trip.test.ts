// What `meerkat get monitor(s) -o yaml|json` prints, `meerkat apply -f -` takes back unchanged (kubectl's round
// trip), for one monitor and for lists; real CLI processes against the real API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';

// More monitors than apply looks up one by one, so the list is planned from one listing of the hub's monitors.
const MONITORS = 12;

describe('meerkat get -o yaml|json | meerkat apply -f -', { timeout: 180_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const meerkat = (args: string[], stdin?: string) => runMeerkat(args, env, stdin);
  const updatedAts = async () =>
    (
      await hub.db
        .selectFrom('monitors')
        .select(['updated_at'])
        .where('organization_id', '=', 'acme')
        .orderBy('id')
        .execute()
    ).map((row) => row.updated_at.toISOString());

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-round-trip-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
    for (let i = 0; i < MONITORS; i += 1) {
      const body = monitorDefinition({
        name: `checkout-${i}`,
        locations: ['default', 'eu-west'],
        frequency: { every: 10 + i, unit: 'MINUTE' },
      });
      expect((await hub.request('POST', '/monitor/', { as: 'acmeEditor', body })).status).toBe(201);
    }
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('prints one monitor as a Monitor resource, the hub’s fields under metadata and status', async () => {
    const { code, stdout } = await meerkat(['get', 'monitor', 'checkout-3', '-o', 'yaml']);
    expect(code).toBe(0);
    const resource = parseYaml(stdout) as Record<string, Record<string, unknown>>;
    expect(resource).toMatchObject({
      apiVersion: 'meerkat.dev/v1alpha1',
      kind: 'Monitor',
      metadata: { name: 'checkout-3', namespace: 'shop' },
      spec: { project: 'shop', name: 'checkout-3', environment: 'production', version: '1.0' },
      status: { monitorId: expect.stringMatching(/^mon_/) as unknown },
    });
    expect(resource.metadata?.creationTimestamp).toEqual(expect.any(String));
    expect(Object.keys(resource.spec ?? {})).not.toContain('createdAt');
    expect(Object.keys(resource.spec ?? {}).slice(0, 3)).toEqual(['project', 'name', 'version']);
  });

  it('applies one monitor as get printed it, in YAML and JSON, and reports it unchanged', async () => {
    const before = await updatedAts();
    for (const format of ['yaml', 'json']) {
      const printed = await meerkat(['get', 'monitor', 'checkout-3', '-o', format]);
      const applied = await meerkat(['apply', '-f', '-'], printed.stdout);
      expect(applied.stderr).toBe('');
      expect(applied.code).toBe(0);
      expect(applied.stdout).toContain('monitor shop/production/checkout-3 unchanged');
      expect(applied.stdout).toContain('1 monitor(s): 0 created, 0 changed, 1 unchanged, 0 deleted');
    }
    expect(await updatedAts()).toEqual(before);
  });

  it('prints a list as kubectl’s List, which apply --dry-run reports unchanged, item by item', async () => {
    const yaml = await meerkat(['get', 'monitors', '-o', 'yaml']);
    const list = parseYaml(yaml.stdout) as { apiVersion: string; kind: string; items: unknown[] };
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items).toHaveLength(MONITORS);
    for (const format of ['yaml', 'json']) {
      const printed = format === 'yaml' ? yaml : await meerkat(['get', 'monitors', '-o', format]);
      const planned = await meerkat(['apply', '-f', '-', '--dry-run', '--diff-exit-code'], printed.stdout);
      expect(planned.code).toBe(0);
      expect(planned.stdout).toContain(
        `${MONITORS} monitor(s): 0 created, 0 changed, ${MONITORS} unchanged, 0 deleted (dry run:`,
      );
    }
  });

  it('shows an edit of the printed list as a change of that monitor only', async () => {
    const printed = await meerkat(['get', 'monitors', '-o', 'yaml']);
    const edited = printed.stdout.replace(/every: 15\n/, 'every: 45\n');
    const planned = await meerkat(['apply', '-f', '-', '--dry-run'], edited);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toMatch(
      /monitor shop\/production\/checkout-5 would be changed \(mon_\S+\)\n {4}frequency\.every: 15 -> 45\n/,
    );
    expect(planned.stdout).toContain(`1 changed, ${MONITORS - 1} unchanged`);
  });

  it('names the list item of a document it refuses', async () => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [monitorDefinition({ name: 'ok' }), { kind: 'x' }],
    };
    const { code, stderr } = await meerkat(['apply', '-f', '-', '--dry-run'], JSON.stringify(list));
    expect(code).toBe(2);
    expect(stderr).toContain('<stdin>:1 items[1]: project:');
  });

  it('names the missing -f when apply has none', async () => {
    const { code, stderr } = await meerkat(['apply']);
    expect(code).toBe(2);
    expect(stderr).toContain("required option '-f, --filename <path>' not specified");
  });
});
