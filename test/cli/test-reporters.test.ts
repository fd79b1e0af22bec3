// `meerkat test` for CI systems: --grep, the summary across monitors, JUnit/JSON/TAP reporters, and colour only
// on a terminal (NO_COLOR honoured).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, meerkatBin, runMeerkat } from '../harness/processes.js';

const ESC = '\u001b[';

describe('meerkat test reporters', { timeout: 180_000 }, () => {
  let work: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'meerkat-reporters-'));
    // One monitor that passes without any network, and one that cannot connect (a closed loopback port).
    const closed = await freePort();
    writeFileSync(
      join(work, 'monitors.yaml'),
      [
        "project: ci\nname: waits\nversion: '1.0'\nfrequency: { every: 1, unit: HOUR }",
        'nodes: [{ id: pause, type: WAIT, duration_ms: 1 }]\nedges: []\n---',
        "project: ci\nname: down & out\nversion: '1.0'\nfrequency: { every: 1, unit: HOUR }",
        `nodes: [{ id: call, type: HTTP_REQUEST, method: GET, base: 'http://127.0.0.1:${closed}', path: /x, response_format: JSON }]`,
        'edges: []\n',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const file = () => join(work, 'monitors.yaml');

  it('ends the text report with a summary across monitors, without colour when not on a terminal', async () => {
    const { code, stdout } = await runMeerkat(['test', '-f', file()]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/\n2 monitor\(s\): 1 passed, 1 failed in \d+\.\d\d s\n$/);
    expect(stdout).not.toContain(ESC);
  });

  it('runs only the monitors --grep matches, and exits 2 when it matches none', async () => {
    const only = await runMeerkat(['test', '-f', file(), '--grep', '^ci/default/wait']);
    expect(only.code).toBe(0);
    expect(only.stdout).toMatch(/^monitor ci\/default\/waits\n[\s\S]*\nPASSED ci\/default\/waits: .+\n$/);
    expect(only.stdout).not.toContain('down & out');
    const none = await runMeerkat(['test', '-f', file(), '--grep', 'nothing-like-this']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      '--grep nothing-like-this matches none of ci/default/waits, ci/default/down & out',
    );
  });

  it('writes JUnit XML: a suite per monitor, a test case per step, the failure with its message', async () => {
    const { code, stdout } = await runMeerkat(['test', '-f', file(), '--reporter', 'junit']);
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="meerkat test" tests="2" failures="1" /,
    );
    expect(stdout).toContain('<testsuite name="ci/default/waits" tests="1" failures="0" skipped="0"');
    expect(stdout).toContain(
      '<testsuite name="ci/default/down &amp; out" tests="1" failures="1" skipped="0"',
    );
    expect(stdout).toMatch(
      /<testcase classname="ci\/default\/down &amp; out" name="call \(HTTP_REQUEST\)" time="[\d.]+">\n\s+<failure message="[^"]*ECONNREFUSED[^"]*" type="connection">/,
    );
  });

  it('writes TAP 14 and JSON with totals', async () => {
    const tap = await runMeerkat(['test', '-f', file(), '--reporter', 'tap']);
    expect(tap.stdout.split('\n').slice(0, 4)).toEqual([
      'TAP version 14',
      '1..2',
      'ok 1 - ci/default/waits',
      'not ok 2 - ci/default/down & out',
    ]);
    const json = await runMeerkat(['test', '-f', file(), '--reporter', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      summary: { monitors: 2, passed: 1, failed: 1 },
      results: [{ monitor: 'ci/default/waits', outcome: { success: true } }, { outcome: { success: false } }],
    });
  });

  it('colours the report on a terminal, and not with NO_COLOR set', async () => {
    // `script` gives the command a pseudo-terminal, as a person's shell would.
    const onTerminal = (env: Record<string, string>) =>
      promisify(execFile)(
        'script',
        ['-qec', `${process.execPath} ${meerkatBin} test -f '${file()}'`, '/dev/null'],
        {
          env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        },
      ).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    const coloured = await onTerminal({});
    expect(coloured.stdout).toContain(`${ESC}31mFAILED ci/default/down & out`);
    expect(coloured.stdout).toContain(`${ESC}32mPASSED ci/default/waits`);
    const plain = await onTerminal({ NO_COLOR: '1' });
    expect(plain.stdout).toContain('FAILED ci/default/down & out');
    expect(plain.stdout).not.toContain(ESC);
  });
});
