// `meerkat heartbeat token`, as a real CLI process against the real API: the ping URL it prints records a run,
// minting again retires the old one, and a monitor that is not a heartbeat is refused with the hub's reason.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heartbeatDefinition } from '../heartbeats/heartbeat-fixtures.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';
import { runMeerkat } from '../harness/processes.js';

describe('meerkat heartbeat token', { timeout: 120_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const meerkat = (...args: string[]) => runMeerkat(args, env);

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null });
    work = mkdtempSync(join(tmpdir(), 'meerkat-heartbeat-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
    expect(
      (await hub.request('PUT', '/monitor/backup', { body: heartbeatDefinition('nightly-backup') })).status,
    ).toBe(201);
    expect((await hub.request('PUT', '/monitor/checkout', { body: monitorDefinition() })).status).toBe(201);
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('prints a ping URL that records a run, and a second one that retires the first', async () => {
    const first = await meerkat('heartbeat', 'token', 'nightly-backup');
    expect([first.code, first.stderr]).toEqual([0, '']);
    const url = /^ {2}(http\S+\/ping\/hb_\S+)$/m.exec(first.stdout)?.[1];
    expect(url, first.stdout).toBeDefined();
    expect(first.stdout).toContain(`curl -fsS -m 10 --retry 3 ${url}/fail`);
    expect((await fetch(url!)).status).toBe(200);
    const runs = (await (await hub.request('GET', '/runs?monitorId=backup')).json()) as {
      data: Array<{ status: string }>;
    };
    expect(runs.data.map((run) => run.status)).toEqual(['completed']);

    const second = await meerkat('heartbeat', 'token', 'nightly-backup', '-o', 'json');
    expect(second.code).toBe(0);
    const minted = JSON.parse(second.stdout) as { monitor: string; token: string; pingUrl: string };
    expect(minted.pingUrl).toBe(`${hub.url}/ping/${minted.token}`);
    expect(minted.monitor).toMatch(/\S/);
    expect((await fetch(minted.pingUrl)).status).toBe(200);
    expect((await fetch(url!)).status).toBe(401);
  });

  it('refuses a monitor that is not a heartbeat, and one it cannot find', async () => {
    const check = await meerkat('heartbeat', 'token', 'checkout');
    expect(check.code).not.toBe(0);
    expect(check.stderr).toMatch(/heartbeat/);
    expect(check.stdout).toBe('');
    const unknown = await meerkat('heartbeat', 'token', 'nothing-here');
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'meerkat: monitor "nothing-here" not found']);
  });
});
