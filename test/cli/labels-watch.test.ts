// Monitor labels (`labels` in the definition, `metadata.labels` of a resource), `GET /monitor/?labelSelector=`,
// `meerkat get monitors -l`, and `get monitors|runs -w`; real CLI processes against the real API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { eventually } from '../harness/eventually.js';
import { runMeerkat, startMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';

const wait = { nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }], edges: [] };

describe('monitor labels, get -l and get -w', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const ids: Record<string, string> = {};
  const meerkat = (args: string[], stdin?: string) => runMeerkat(args, env, stdin);

  async function create(body: Record<string, unknown>) {
    const created = await hub.request('POST', '/monitor/', { as: 'acmeEditor', body });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string; name: string } };
    ids[data.name] = data.id;
  }
  const selected = async (selector: string) => {
    const { code, stdout, stderr } = await meerkat(['get', 'monitors', '-l', selector, '-o', 'name']);
    expect(code, stderr).toBe(0);
    return stdout
      .trimEnd()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => Object.keys(ids).find((name) => `monitor/${ids[name]}` === line))
      .sort();
  };

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-labels-watch-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
    await create(monitorDefinition({ name: 'cart', labels: { team: 'shop', tier: '1' }, ...wait }));
    await create(monitorDefinition({ name: 'search', labels: { team: 'shop', canary: '' }, ...wait }));
    await create(monitorDefinition({ name: 'invoice', labels: { 'example.com/team': 'billing' }, ...wait }));
    await create(monitorDefinition({ name: 'plain', ...wait }));
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('an invalid label is a 400 naming it, and nothing is written', async () => {
    for (const labels of [{ 'bad key': 'x' }, { team: 'not ok!' }, { 'UPPER.example.com/x': 'y' }]) {
      const answer = await hub.request('POST', '/monitor/', {
        as: 'acmeEditor',
        body: monitorDefinition({ name: 'refused', labels, ...wait }),
      });
      expect(answer.status).toBe(400);
      const body = (await answer.json()) as { code: string; details: Array<{ path: string }> };
      expect(body.details[0]?.path).toBe(`labels.${Object.keys(labels)[0]}`);
    }
    const listed = await hub.request('GET', '/monitor/?limit=100', { as: 'acmeViewer' });
    const { data } = (await listed.json()) as { data: Array<{ name: string }> };
    expect(data.map((m) => m.name)).not.toContain('refused');
  });

  it('GET /monitor/?labelSelector filters on the hub, and a wrong selector is a 400 naming it', async () => {
    const list = async (selector: string) => {
      const answer = await hub.request('GET', `/monitor/?labelSelector=${encodeURIComponent(selector)}`, {
        as: 'acmeViewer',
      });
      return (await answer.json()) as { data: Array<{ name: string }>; total: number };
    };
    const shop = await list('team=shop');
    expect(shop.total).toBe(2);
    expect(shop.data.map((m) => m.name).sort()).toEqual(['cart', 'search']);
    for (const wrong of ['team in (shop)', 'bad key=x', 'team=not ok!']) {
      const answer = await hub.request('GET', `/monitor/?labelSelector=${encodeURIComponent(wrong)}`, {
        as: 'acmeViewer',
      });
      expect(answer.status, wrong).toBe(400);
      expect(((await answer.json()) as { details: Array<{ path: string }> }).details[0]?.path).toBe(
        'labelSelector',
      );
    }
  });

  it('get monitors -l: equality, inequality, existence and a prefixed key', async () => {
    expect(await selected('team=shop')).toEqual(['cart', 'search']);
    expect(await selected('team==shop,tier!=1')).toEqual(['search']);
    expect(await selected('tier!=1')).toEqual(['invoice', 'plain', 'search']);
    expect(await selected('canary')).toEqual(['search']);
    expect(await selected('!team')).toEqual(['invoice', 'plain']);
    expect(await selected('example.com/team=billing')).toEqual(['invoice']);
    const wrong = await meerkat(['get', 'monitors', '-l', 'team in (shop)']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^meerkat: labelSelector: .*set-based/);
  });

  it("a resource's metadata.labels are its labels, and get -o yaml | apply -f - is unchanged", async () => {
    const resource = [
      'apiVersion: meerkat.dev/v1alpha1',
      'kind: Monitor',
      'metadata: { name: labelled, namespace: shop, labels: { team: shop, app.kubernetes.io/name: web } }',
      "spec: { version: '1.0', environment: production, frequency: { every: 5, unit: MINUTE },",
      '        nodes: [{ id: w, type: WAIT, duration_ms: 1 }] }',
    ].join('\n');
    expect((await meerkat(['apply', '-f', '-'], resource)).code).toBe(0);
    const yaml = await meerkat(['get', 'monitor', 'labelled', '-o', 'yaml']);
    const printed = parseYaml(yaml.stdout) as { metadata: { labels: unknown }; spec: { labels?: unknown } };
    expect(printed.metadata.labels).toEqual({ team: 'shop', 'app.kubernetes.io/name': 'web' });
    expect(printed.spec.labels).toBeUndefined();
    const again = await meerkat(['apply', '-f', '-'], yaml.stdout);
    expect(again.stdout).toMatch(/monitor shop\/production\/labelled unchanged/);
    const name = await meerkat([
      'get',
      'monitors',
      '-l',
      'app.kubernetes.io/name=web',
      '-o',
      'jsonpath={.items[*].metadata.name}',
    ]);
    expect(name.stdout).toBe('labelled');
  });

  it('get monitors -w prints the table, then a monitor created while it watches', async () => {
    const watching = await startMeerkat(['get', 'monitors', '-w', '--no-headers'], env, /plain/);
    try {
      await create(monitorDefinition({ name: 'arrived-later', ...wait }));
      await eventually(() => Promise.resolve(/arrived-later/.test(watching.output())), 30_000);
      expect(watching.output()).not.toMatch(/^ID/m);
    } finally {
      await watching.stop();
    }
  });

  it('get runs -w prints the header, then a run triggered while it watches', async () => {
    const watching = await startMeerkat(['get', 'runs', '-w'], env, /No runs found/);
    try {
      const triggered = await hub.request('POST', `/runs/trigger/${ids.cart}`, {
        as: 'acmeEditor',
        body: { environment: 'production' },
      });
      const { data } = (await triggered.json()) as { data: { id: string } };
      await eventually(() => Promise.resolve(watching.output().includes(data.id)), 30_000);
      expect(watching.output()).toMatch(/^ID\s+MONITOR\s+LOCATION\s+STATUS/m);
      expect(watching.output()).toMatch(new RegExp(`${data.id}\\s+cart\\s+default`));
    } finally {
      await watching.stop();
    }
  });
});
