// The document as third-party tools use it: openapi-typescript generates a client that `tsc --strict` compiles
// (no skipLibCheck), and Redocly's recommended ruleset finds no error.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../hub/src/server/openapi-document.js';

const run = promisify(execFile);
const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));
const redoclyConfig = fileURLToPath(new URL('./redocly.yaml', import.meta.url));

/** A client a reader would write against the generated types: it must compile as it stands. */
const clientSource = `
import type { components, operations, paths } from './api.js';

type Monitor = components['schemas']['Monitor'];
type ListMonitors = operations['listMonitors']['responses'][200]['content']['application/json'];
type MonitorByIdGet = paths['/monitor/{id}']['get'];
type Body = components['schemas']['HttpRequestNode']['body'];

export function firstMonitorName(page: ListMonitors): string | undefined {
  const first: Monitor | undefined = page.data[0];
  return first?.name;
}
export const bodies: Body[] = [{ nested: [1, 'two', { three: null }] }, 'text', 42, true, null];
export type GetMonitorAnswer = MonitorByIdGet['responses'][200]['content']['application/json']['data'];
export type DryRunQuery = operations['putMonitor']['parameters']['query'];
`;

describe('the OpenAPI document with client generators', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meerkat-openapi-'));
  const documentPath = join(dir, 'openapi.json');
  writeFileSync(documentPath, JSON.stringify(buildOpenApiDocument('1.2.3'), null, 2));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('generates a TypeScript client with openapi-typescript that tsc --strict compiles', async () => {
    await run(bin('openapi-typescript'), [documentPath, '-o', join(dir, 'api.d.ts')]);
    writeFileSync(join(dir, 'client.ts'), clientSource);
    const options = ['--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext'];
    // From the temp dir, so that only the generated file and the client are compiled (no @types of this repo).
    const compiled = await run(bin('tsc'), [...options, 'client.ts'], { cwd: dir }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(compiled).toBe('');
  }, 120_000);

  it('passes Redocly lint with no errors', async () => {
    const linted = await run(
      bin('redocly'),
      ['lint', documentPath, '--config', redoclyConfig, '--format', 'summary'],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).then(
      (done) => ({ code: 0, output: done.stdout + done.stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: error.stdout + error.stderr,
      }),
    );
    expect(linted.output).not.toMatch(/^error /m);
    expect(linted.code, linted.output).toBe(0);
  }, 120_000);
});
