// The README's quick start, run as a reader runs it: its `sh` blocks, as written, against a fresh `meerkat dev`
// started the way its first block says. Two things differ, both on loopback: the hub listens on a free port (the
// blocks' 127.0.0.1:3000 is rewritten to it), and the samples' `base` addresses and the webhook point at a local
// target that answers what the samples assert and checks the secrets arrive.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startMeerkat, type Started } from '../harness/processes.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(repo, 'README.md'), 'utf8');

/** The `sh` blocks of the README's "Run it" section, in order. */
export function quickStartBlocks(text: string): string[] {
  const section = text.slice(text.indexOf('## Run it'), text.indexOf('## Test it'));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

const secretValue = (name: string) =>
  (
    JSON.parse(readFileSync(join(repo, 'config/samples/secrets', `${name}.json`), 'utf8')) as {
      value: string;
    }
  ).value;

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => resolve(text));
  });
}

/** Answers what the samples assert, and only when the login-flow's secrets arrived as stored. */
function startTarget(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const clientSecret = (JSON.parse(secretValue('shop_client')) as { secret: string }).secret;
  const server = createServer((req, res) => {
    void body(req).then((text) => {
      requests.push(`${req.method} ${req.url}`);
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
      switch (`${req.method} ${req.url}`) {
        case 'POST /api/session': {
          const password = (JSON.parse(text) as { password?: string }).password;
          if (req.headers['x-client-secret'] !== clientSecret || password !== secretValue('monitor_password'))
            return json(401, { error: 'wrong client secret or password' });
          return json(201, { ok: true }, { 'set-cookie': 'session=abc; HttpOnly' });
        }
        case 'GET /api/account':
          if (req.headers.authorization !== secretValue('monitor_api_token')) return json(401, {});
          return json(200, { email: 'synthetic-monitor@shop.example.com' });
        case 'GET /healthz':
          return res.writeHead(204).end();
        case 'GET /orders/v1/health':
          return json(200, { database: { connected: true } });
        case 'GET /inventory/v1/health':
          return res
            .writeHead(200, { 'content-type': 'application/xml' })
            .end('<health><status>up</status></health>');
        case 'GET /api/v2/status.json':
          return json(200, { status: { indicator: 'none', description: 'All Systems Operational' } });
        case 'POST /webhook':
          return json(200, {});
        default:
          return json(404, { error: `no ${req.method} ${req.url}` });
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}`, requests });
    }),
  );
}

/** A copy of the tree the blocks use: the samples aimed at the target, `bin` linked to the real one. */
function prepareWorkTree(targetUrl: string): string {
  const work = mkdtempSync(join(tmpdir(), 'meerkat-readme-'));
  cpSync(join(repo, 'config/samples'), join(work, 'config/samples'), { recursive: true });
  const monitors = join(work, 'config/samples/monitors');
  for (const file of readdirSync(monitors)) {
    const path = join(monitors, file);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/base: https:\/\/\S+/g, `base: ${targetUrl}`));
  }
  const webhook = join(work, 'config/samples/integration-webhook.json');
  writeFileSync(
    webhook,
    readFileSync(webhook, 'utf8').replace('https://hooks.example.com/meerkat', `${targetUrl}/webhook`),
  );
  symlinkSync(join(repo, 'bin'), join(work, 'bin'));
  return work;
}

function runShell(script: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the README quick start', () => {
  const blocks = quickStartBlocks(readme);
  let target: Awaited<ReturnType<typeof startTarget>>;
  let work: string;
  let dev: Started;
  let hubUrl: string;

  beforeAll(async () => {
    target = await startTarget();
    work = prepareWorkTree(target.url);
  });
  afterAll(async () => {
    await dev?.stop();
    target?.server.close();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('starts meerkat dev as its first block says, with the key in .meerkat/', async () => {
    const start = /^npm ci && ((?:[A-Z_]+=\S+ )*)npm start\n$/.exec(blocks[0] ?? '');
    expect(start, `first block: ${blocks[0]}`).not.toBeNull();
    const assignments = Object.fromEntries(
      (start?.[1] ?? '')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map((pair) => pair.split('=') as [string, string]),
    );
    const [port, metricsPort] = [await freePort(), await freePort()];
    hubUrl = `http://127.0.0.1:${port}`;
    // `npm start` is `node bin/meerkat.js dev` (package.json); the dependencies are installed already.
    expect(
      (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
        .scripts.start,
    ).toBe('node bin/meerkat.js dev');
    dev = await startMeerkat(
      ['dev'],
      {
        ...assignments,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        MEERKAT_DATA_DIR: join(work, '.meerkat'),
      },
      /Try: curl .*\n/,
      120_000,
    );
    expect(dev.output()).toContain(`Meerkat dev hub on ${hubUrl}`);
  }, 150_000);

  it('runs every other block as written: every command succeeds and every first run passes', async () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const script = blocks.slice(1).join('\n').replaceAll('http://127.0.0.1:3000', hubUrl);
    const ran = await runShell(script, work, {
      PATH: process.env.PATH ?? '',
      HOME: work,
      MEERKAT_URL: hubUrl,
      MEERKAT_CONFIG: join(work, 'no-config.yaml'),
      NO_COLOR: '1',
    });
    expect(ran.stderr).toBe('');
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toContain('"status":"ok"');
    expect(ran.stdout).toContain('3 monitor(s): 3 created, 0 changed, 0 unchanged, 0 deleted (dry run');
    expect(ran.stdout).toContain('3 monitor(s): 3 created, 0 changed, 0 unchanged, 0 deleted\n');
    const runLines = ran.stdout.split('\n').filter((line) => /^run_\S+\s/.test(line));
    expect(runLines).toHaveLength(4); // login-flow, github-status, checkout-backends in default and eu-west
    for (const line of runLines) expect(line).toMatch(/\scompleted\s+pass\s/);
    expect(ran.stdout).toMatch(/Name:\s+login-flow/);
    expect(target.requests).toEqual(
      expect.arrayContaining([
        'POST /api/session',
        'GET /api/account',
        'GET /inventory/v1/health',
        'GET /api/v2/status.json',
      ]),
    );
  }, 240_000);
});
