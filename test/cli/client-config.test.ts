// The client config file: named contexts as kubeconfig has them, `meerkat config`, and which of flag, environment
// and file wins.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freePort, runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

describe('the client config file and its contexts', { timeout: 180_000 }, () => {
  let hub: TestHub;
  let work: string;
  let config: string;
  let closed: string;
  const meerkat = (args: string[], env: Record<string, string> = {}) =>
    runMeerkat(args, { MEERKAT_CONFIG: config, ...env });

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-config-'));
    config = join(work, 'meerkat', 'config.yaml');
    closed = `http://127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('creates contexts with set-context, owner-readable only, the first one current', async () => {
    const created = await meerkat([
      'config',
      'set-context',
      'acme',
      '--server',
      hub.url,
      '--api-key',
      hub.keys.acmeViewer,
      '--organization',
      'acme',
    ]);
    expect(created).toMatchObject({ code: 0, stdout: `Context "acme" created in ${config}.\n` });
    const token = await meerkat([
      'config',
      'set-context',
      'globex',
      '--server',
      hub.url,
      '--token-command',
      `printf %s ${hub.keys.globexAdmin}`,
    ]);
    expect(token.code).toBe(0);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(parseYaml(readFileSync(config, 'utf8'))).toMatchObject({
      'current-context': 'acme',
      contexts: [
        { name: 'acme', server: hub.url, 'api-key': hub.keys.acmeViewer, organization: 'acme' },
        { name: 'globex', server: hub.url, 'token-command': `printf %s ${hub.keys.globexAdmin}` },
      ],
    });
    const listed = await meerkat(['config', 'get-contexts']);
    expect(listed.stdout).toMatch(
      /^CURRENT\s+NAME\s+SERVER\s+ORGANIZATION\s+CREDENTIAL\n\*\s+acme\s+\S+\s+acme\s+api-key\n\s+globex\s+\S+\s+token-command\n$/,
    );
  });

  it('acts as the current context, and use-context switches it', async () => {
    expect((await meerkat(['get', 'monitors', '-o', 'json'])).code).toBe(0);
    expect((await meerkat(['config', 'use-context', 'globex'])).stdout).toBe(
      'Switched to context "globex".\n',
    );
    expect((await meerkat(['config', 'current-context'])).stdout).toBe('globex\n');
    // The token-command's output is the bearer: the CLI now sees globex's monitor, which acme's key cannot.
    const created = await hub.request('POST', '/monitor/', {
      as: 'globexAdmin',
      body: {
        project: 'p',
        name: 'only-globex',
        version: '1.0',
        frequency: { every: 1, unit: 'HOUR' },
        nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }],
        edges: [],
      },
    });
    expect(created.status).toBe(201);
    const listed = await meerkat(['get', 'monitors', '-o', 'name']);
    expect(listed.stdout).toMatch(/^monitor\/mon_\S+\n$/);
    const refused = await meerkat(['config', 'use-context', 'nope']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`meerkat: ${config}: no context "nope" (contexts: acme, globex)\n`);
  });

  it('takes --server over MEERKAT_URL over the context, and an explicit --context over the environment', async () => {
    expect((await meerkat(['get', 'monitors'], { MEERKAT_URL: closed })).code).toBe(3);
    expect((await meerkat(['get', 'monitors', '--context', 'acme'], { MEERKAT_URL: closed })).code).toBe(0);
    expect((await meerkat(['get', 'monitors', '--context', 'acme', '--server', closed])).code).toBe(3);
    expect(
      (await meerkat(['get', 'monitors'], { MEERKAT_CONTEXT: 'acme', MEERKAT_API_KEY: 'mk_wrong' })).code,
    ).toBe(3);
    const listed = (await meerkat(['get', 'monitors', '-o', 'json'], { MEERKAT_CONTEXT: 'acme' })).stdout;
    expect(JSON.parse(listed)).toEqual({ apiVersion: 'v1', kind: 'List', items: [] });
  });

  it('refuses an invalid file with one line naming the field (exit 2)', async () => {
    const broken = join(work, 'broken.yaml');
    writeFileSync(broken, 'contexts:\n  - name: x\n    server: not-a-url\n');
    const answer = await runMeerkat(['get', 'monitors'], { MEERKAT_CONFIG: broken });
    expect(answer.code).toBe(2);
    expect(answer.stderr).toBe(`meerkat: ${broken}: contexts[0].server: Invalid URL\n`);
  });
});
