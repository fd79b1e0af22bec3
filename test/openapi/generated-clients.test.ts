// Clients generated from docs/openapi.json by two generators from the npm registry, each with its default options
// (issue 35): openapi-typescript's types with openapi-fetch, and @hey-api/openapi-ts's SDK. A reader's program
// against each (client-flows.ts) compiles under `tsc --strict` and runs the README's flow against a real
// `meerkat dev`: it creates a monitor without `environment` (the hub defaults it), triggers it, and reads the run,
// whose check reaches a target on loopback.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMeerkatDev, type MeerkatDev } from '../harness/processes.js';
import { flowMonitorSource, heyApiFlowSource, openapiFetchFlowSource } from './client-flows.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(repo, 'node_modules/.bin', name);
const documentPath = join(repo, 'docs/openapi.json');
/** A reader's dependencies and theirs; the generated SDK of @hey-api/openapi-ts needs none. */
const READER_PACKAGES = ['openapi-fetch', 'openapi-typescript-helpers', '@types/node', 'undici-types'];

let dir: string;
let dev: MeerkatDev;
let target: Server;
let targetUrl: string;
const targetRequests: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'meerkat-clients-'));
  // The reader's project: ES modules, with only what it installs (openapi-fetch, @types/node) taken from here.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  for (const name of READER_PACKAGES) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(join(repo, 'node_modules', name), join(dir, 'node_modules', name));
  }
  target = createServer((request, response) => {
    targetRequests.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}`;
  dev = await startMeerkatDev({}, 300_000);
}, 360_000);

afterAll(async () => {
  await dev?.stop();
  await new Promise((resolve) => target?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** tsc --strict over `files` in the reader's folder, emitting next to them; resolves with tsc's complaints. */
async function compile(files: string[]): Promise<string> {
  const options = ['--strict', '--target', 'es2022', '--module', 'nodenext', '--outDir', 'out'];
  return run(bin('tsc'), [...options, ...files], { cwd: dir }).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  );
}

/** Runs a compiled program with the hub, its key, the target and a monitor name; returns the run it printed. */
async function runFlow(program: string, name: string) {
  const { stdout } = await run(
    process.execPath,
    [join(dir, 'out', program), dev.api, dev.key, targetUrl, name],
    {
      cwd: dir,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
}

const generators = [
  {
    generator: 'openapi-typescript + openapi-fetch',
    generate: () => run(bin('openapi-typescript'), [documentPath, '-o', join(dir, 'api.d.ts')]),
    program: 'openapi-fetch-flow',
    source: openapiFetchFlowSource,
  },
  {
    generator: '@hey-api/openapi-ts',
    generate: () => run(bin('openapi-ts'), ['-i', documentPath, '-o', join(dir, 'hey')]),
    program: 'hey-api-flow',
    source: heyApiFlowSource,
  },
];

describe('clients generated from the OpenAPI document', () => {
  it.each(generators)(
    '$generator: compiles under tsc --strict and runs create, trigger, read',
    async ({ generate, program, source }) => {
      await generate();
      writeFileSync(join(dir, 'flow-monitor.ts'), flowMonitorSource);
      writeFileSync(join(dir, `${program}.ts`), source);
      expect(await compile([`${program}.ts`])).toBe('');
      const requestsBefore = targetRequests.length;
      const finished = await runFlow(`${program}.js`, program);
      expect(finished).toMatchObject({
        status: 'completed',
        success: true,
        environment: 'default',
        errors: [],
      });
      expect(targetRequests.slice(requestsBefore)).toContain('GET /healthz');
    },
    300_000,
  );
});
