import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { RunOutcome } from '../../hub/src/runner/monitor-runner.js';
import { runMeerkat } from '../harness/processes.js';
import { LOGIN_SECRETS, startTargetServer, type TargetServer } from './target-server.js';

const sample = new URL('../../config/samples/monitors/login-flow.yaml', import.meta.url).pathname;
const secretValues = [
  LOGIN_SECRETS.monitor_password,
  LOGIN_SECRETS.monitor_api_token,
  LOGIN_SECRETS.shop_client.secret,
];

describe('meerkat test: run a monitor file here, without a hub', () => {
  let target: TargetServer;
  let work: string;
  let monitorFile: string;
  let secretsFile: string;
  // The token comes from the environment, the others from the --secrets file.
  const tokenVariable = { MEERKAT_SECRET_monitor_api_token: LOGIN_SECRETS.monitor_api_token };

  beforeAll(async () => {
    target = await startTargetServer();
    work = mkdtempSync(join(tmpdir(), 'meerkat-test-'));
    // The login-flow sample, pointed at the local target (this machine cannot reach the internet).
    monitorFile = join(work, 'login-flow.yaml');
    writeFileSync(
      monitorFile,
      readFileSync(sample, 'utf8')
        .replaceAll('https://staging.shop.example.com', target.url)
        .replace('duration_ms: 1500', 'duration_ms: 20'),
    );
    secretsFile = join(work, 'secrets.yaml');
    writeFileSync(
      secretsFile,
      stringify({ shop_client: LOGIN_SECRETS.shop_client, monitor_password: LOGIN_SECRETS.monitor_password }),
    );
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await target.close();
  });

  it('prints every step and assertion and a summary, and exits 0 when the monitor passes', async () => {
    const { code, stdout, stderr } = await runMeerkat(
      ['test', '-f', monitorFile, '--secrets', secretsFile],
      tokenVariable,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('monitor shop/production/login-flow');
    expect(lines[1]).toMatch(
      new RegExp(
        `^  passed   login    POST ${target.url}/api/session -> 201, \\d+ bytes in [\\d.]+ ms \\(connect [\\d.]+ ms, first byte [\\d.]+ ms\\)$`,
      ),
    );
    expect(lines[2]).toMatch(/^ {2}passed {3}settle {3}waited [\d.]+ ms$/);
    expect(stdout).toContain('passed  login status EQUAL 201, got 201');
    expect(stdout).toContain(
      'passed  account body $.email ENDS_WITH "@shop.example.com", got "synthetic-monitor@shop.example.com"',
    );
    expect(stdout).toMatch(/\nPASSED shop\/production\/login-flow: 4 step\(s\) passed in [\d.]+ m?s\n$/);
    for (const value of secretValues) expect(stdout).not.toContain(value);
  });

  it('exits 1 and shows expected against actual when an assertion fails', async () => {
    const { code, stdout } = await runMeerkat(['test', '-f', monitorFile, '--secrets', secretsFile], {
      MEERKAT_SECRET_monitor_api_token: 'Bearer wrong',
    });
    expect(code).toBe(1);
    expect(stdout).toContain('failed  account status EQUAL 200, got 401');
    expect(stdout).toContain('failed  account body $.email ENDS_WITH "@shop.example.com", got nothing');
    expect(stdout).toMatch(
      /\nFAILED shop\/production\/login-flow: 3 passed, 1 failed, 0 skipped in [\d.]+ m?s\n/,
    );
    expect(stdout).toContain('  - verify: account status EQUAL 200, got 401 [assertion]');
  });

  it('runs as the --env environment, and names a secret that is missing there', async () => {
    const { code, stdout } = await runMeerkat([
      'test',
      '-f',
      monitorFile,
      '--secrets',
      secretsFile,
      '--env',
      'qa',
    ]);
    expect(code).toBe(1);
    expect(stdout).toContain('monitor shop/qa/login-flow');
    expect(stdout).toContain('  - account: secret monitor_api_token not found in qa [runner]');
    expect(stdout).toContain('skipped  verify   not run: account failed');
  });

  it('prints the run outcomes as JSON with --json', async () => {
    const { code, stdout } = await runMeerkat(
      ['test', '-f', monitorFile, '--secrets', secretsFile, '--json'],
      tokenVariable,
    );
    expect(code).toBe(0);
    const results = JSON.parse(stdout) as Array<{ monitor: string; outcome: RunOutcome }>;
    expect(results).toHaveLength(1);
    expect(results[0]?.monitor).toBe('shop/production/login-flow');
    expect(results[0]?.outcome).toMatchObject({ success: true, errors: [] });
    expect(results[0]?.outcome.steps.map((step) => step.nodeId)).toEqual([
      'login',
      'settle',
      'account',
      'verify',
    ]);
  });

  it('exits 2 for usage errors: no -f, an invalid monitor file, a secrets file that is not a map', async () => {
    const noFile = await runMeerkat(['test']);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain("required option '-f, --filename <path>' not specified");

    const invalid = join(work, 'invalid.yaml');
    writeFileSync(invalid, readFileSync(monitorFile, 'utf8').replace('method: GET', 'method: FETCH'));
    const badMonitor = await runMeerkat(['test', '-f', invalid]);
    expect(badMonitor.code).toBe(2);
    expect(badMonitor.stderr).toContain(`meerkat test: ${invalid}:1: nodes[2].method: `);

    const list = join(work, 'list.yaml');
    writeFileSync(list, '- a\n- b\n');
    const badSecrets = await runMeerkat(['test', '-f', monitorFile, '--secrets', list]);
    expect(badSecrets.code).toBe(2);
    expect(badSecrets.stderr).toBe(`meerkat test: ${list}: expected a map of secret names to values\n`);
  });
});
