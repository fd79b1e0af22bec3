// Every filter `meerkat get --help` names filters (a test per flag), and `get monitors` reads health for the
// whole list in a request per 100 monitors; real CLI processes against the real API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';

const wait = { nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }], edges: [] };

describe('meerkat get filters', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const ids: Record<string, string> = {};
  const runsOf: Record<string, string[]> = {};
  const meerkat = (...args: string[]) => runMeerkat(args, env);
  const names = (stdout: string) => stdout.trimEnd().split('\n').sort();

  async function create(key: string, body: Record<string, unknown>) {
    const created = await hub.request('POST', '/monitor/', { as: 'acmeEditor', body });
    ids[key] = ((await created.json()) as { data: { id: string } }).data.id;
  }
  async function trigger(key: string, environment: string) {
    const answer = await hub.request('POST', `/runs/trigger/${ids[key]}`, {
      as: 'acmeEditor',
      body: { environment },
    });
    (runsOf[key] ??= []).push(((await answer.json()) as { data: { id: string } }).data.id);
  }

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-get-filters-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
    await create('shopProd', monitorDefinition({ name: 'cart', ...wait }));
    await create('shopStaging', monitorDefinition({ name: 'cart', environment: 'staging', ...wait }));
    await create('billing', monitorDefinition({ project: 'billing', name: 'invoice', ...wait }));
    await trigger('shopProd', 'production');
    await trigger('shopStaging', 'staging');
    await trigger('billing', 'production');
    await trigger('billing', 'production');
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('GET /runs filters by project and environment, and refuses an invalid one naming it', async () => {
    const list = async (query: string) =>
      (
        (await (await hub.request('GET', `/runs/?${query}`, { as: 'acmeViewer' })).json()) as {
          data: Array<{ id: string }>;
          total: number;
        }
      ).data.map((r) => r.id);
    expect((await list('project=shop')).sort()).toEqual([...runsOf.shopProd!, ...runsOf.shopStaging!].sort());
    expect(await list('project=shop&environment=staging')).toEqual(runsOf.shopStaging);
    expect(await list('project=nobody')).toEqual([]);
    const invalid = await hub.request('GET', '/runs/?environment=%20x', { as: 'acmeViewer' });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { details: Array<{ path: string }> }).details[0]?.path).toBe(
      'environment',
    );
  });

  it('get runs --project', async () => {
    const { code, stdout } = await meerkat('get', 'runs', '--project', 'billing', '-o', 'name');
    expect(code).toBe(0);
    expect(names(stdout)).toEqual(runsOf.billing!.map((id) => `run/${id}`).sort());
  });

  it('get runs --environment', async () => {
    const { stdout } = await meerkat('get', 'runs', '--environment', 'staging', '-o', 'name');
    expect(names(stdout)).toEqual(runsOf.shopStaging!.map((id) => `run/${id}`));
  });

  it('get runs --monitor with --project and --environment narrowing the name', async () => {
    const ambiguous = await meerkat('get', 'runs', '--monitor', 'cart');
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('monitor "cart" is ambiguous');
    const { stdout } = await meerkat(
      'get',
      'runs',
      '--monitor',
      'cart',
      '--environment',
      'staging',
      '-o',
      'name',
    );
    expect(names(stdout)).toEqual(runsOf.shopStaging!.map((id) => `run/${id}`));
  });

  it('get runs --status and --limit', async () => {
    const pending = await meerkat('get', 'runs', '--status', 'pending', '--limit', '2', '-o', 'name');
    expect(names(pending.stdout)).toHaveLength(2);
    const failed = await meerkat('get', 'runs', '--status', 'failed', '-o', 'name');
    expect(failed.stdout).toBe('');
  });

  it('get monitors --project and --environment', async () => {
    const billing = await meerkat('get', 'monitors', '--project', 'billing', '-o', 'name');
    expect(billing.stdout).toBe(`monitor/${ids.billing}\n`);
    const staging = await meerkat('get', 'monitors', '--environment', 'staging', '-o', 'name');
    expect(staging.stdout).toBe(`monitor/${ids.shopStaging}\n`);
  });

  it('get events --limit', async () => {
    const { code, stderr } = await meerkat('get', 'events', '--limit', '1');
    expect(code).toBe(0);
    expect(stderr).toBe('No events found.\n');
    expect((await meerkat('get', 'events', '--limit', '101')).code).toBe(2);
  });

  it('get monitors shows each monitor’s health as GET /metrics/monitors/{id} gives it', async () => {
    const { code, stdout } = await meerkat('get', 'monitors');
    expect(code).toBe(0);
    for (const key of ['shopProd', 'shopStaging', 'billing']) {
      const answer = await hub.request('GET', `/metrics/monitors/${ids[key]}`, { as: 'acmeViewer' });
      const { data } = (await answer.json()) as { data: { status: string } };
      expect(stdout).toMatch(new RegExp(`^${ids[key]}\\s.*\\s${data.status}\\s+<none>$`, 'm'));
    }
  });
});
