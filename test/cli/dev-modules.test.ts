import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { startMeerkatDev, type MeerkatDev } from '../harness/processes.js';
import { monitorAgainst, startTarget, type Target } from '../runs/run-fixtures.js';

/**
 * A preload for NODE_OPTIONS that registers a loader hook writing the URL of every module the process loads
 * through `import` (CommonJS packages too: their entry file passes the hook) into `<dir>/modules.txt`.
 */
function moduleCensus(dir: string): string {
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  appendFileSync(${JSON.stringify(join(dir, 'modules.txt'))}, url + '\\n');
  return nextLoad(url, context);
}
`,
  );
  const preload = join(dir, 'preload.mjs');
  writeFileSync(
    preload,
    // Not in the child that runs initdb (`node -e`, embedded-database.ts): with the hook there it never ended.
    `import { register } from 'node:module';\nif (!process.execArgv.includes('-e')) register(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return preload;
}

const packageOf = (url: string) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];

describe('meerkat dev loads what it uses, when it uses it (docs/adr/0074-dev-memory.md)', () => {
  let census: string;
  let target: Target;
  let dev: MeerkatDev;
  const loadedPackages = () =>
    new Set(readFileSync(join(census, 'modules.txt'), 'utf8').split('\n').map(packageOf).filter(Boolean));

  beforeAll(async () => {
    census = mkdtempSync(join(tmpdir(), 'meerkat-dev-modules-'));
    target = await startTarget();
    // Ready within 120 s: at a load average of 15 on 2 cores it took more than 60.
    dev = await startMeerkatDev({ NODE_OPTIONS: `--import ${moduleCensus(census)}` }, 120_000);
  }, 150_000);
  afterAll(async () => {
    await dev.stop();
    await target.close();
    rmSync(census, { recursive: true, force: true });
  });

  it('after a run, has loaded PGlite and undici but not BullMQ, ioredis, node-postgres or the cloud clients', async () => {
    const headers = { authorization: `Bearer ${dev.key}`, 'content-type': 'application/json' };
    const put = await fetch(`${dev.api}/monitor/census`, {
      method: 'PUT',
      headers,
      body: JSON.stringify(monitorAgainst(target, { name: 'census' })),
    });
    expect(put.status).toBeLessThan(300);
    const trigger = await fetch(`${dev.api}/runs/trigger/census`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ environment: 'production' }),
    });
    const { data } = (await trigger.json()) as { data: { id: string } };
    const run = await eventually(async () => {
      const answer = await fetch(`${dev.api}/runs/${data.id}`, { headers });
      const body = (await answer.json()) as { data: { status: string; success: boolean | null } };
      return body.data.status === 'completed' ? body.data : undefined;
    });
    expect(run.success).toBe(true);

    const packages = loadedPackages();
    expect(packages).toContain('@electric-sql/pglite');
    expect(packages).toContain('undici');
    for (const unused of [
      'bullmq',
      'ioredis',
      'pg',
      '@kubernetes/client-node',
      '@google-cloud/secret-manager',
    ])
      expect(packages, unused).not.toContain(unused);
  });
});
