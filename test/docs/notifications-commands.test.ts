// The `sh` blocks of docs/notifications.md's maintenance section, run as a reader runs them: in order, each with
// `sh -e`, with `meerkat` on the PATH and MEERKAT_URL and MEERKAT_API_KEY set as the section says, against a real
// hub. (Its MaintenanceWindow document is also applied with kubectl by test/operator/operator-docs.kube.test.ts.)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MaintenanceWindow, Silence } from '../../hub/src/maintenance/maintenance.schema.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { meerkatBin } from '../harness/processes.js';

const page = readFileSync(new URL('../../docs/notifications.md', import.meta.url), 'utf8');
const SECTION = '## Maintenance windows, silences and reminders';

/** The `sh` blocks of the section, in order. */
function sectionBlocks(): string[] {
  const start = page.indexOf(SECTION);
  const end = page.indexOf('\n## ', start + SECTION.length);
  const section = page.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

function runBlock(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-ec', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('docs/notifications.md: windows and silences', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const read = async <T>(path: string) =>
    ((await (await hub.request('GET', path)).json()) as { data: T }).data;

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-docs-notifications-'));
    symlinkSync(meerkatBin, join(work, 'meerkat'));
    env = {
      PATH: `${work}:${process.env.PATH ?? ''}`,
      HOME: work,
      MEERKAT_URL: hub.url,
      MEERKAT_API_KEY: hub.keys.acmeEditor,
      MEERKAT_CONFIG: join(work, 'none.yaml'),
    };
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('has the deploy silence, its API form, the weekly window, its document and a rule window', () => {
    const blocks = sectionBlocks();
    expect(blocks).toHaveLength(5);
    expect(blocks[0]).toContain('meerkat silence create');
    expect(blocks[1]).toContain('curl');
    expect(blocks[2]).toContain('meerkat maintenance create');
    expect(blocks[3]).toContain('meerkat apply -f -');
    expect(blocks[4]).toContain('--rrule');
  });

  it('every block runs as written and does what the page says', async () => {
    const outputs: string[] = [];
    for (const block of sectionBlocks()) {
      const { code, output } = await runBlock(block, env);
      expect({ block, code, output }).toMatchObject({ code: 0 });
      outputs.push(output);
    }
    const silences = await read<Silence[]>('/silences');
    const deploys = silences.filter((s) => s.comment === 'deploying 4.2');
    // The CLI's silence, expired by the script, and the API's, active.
    expect(deploys.map((s) => s.state).sort()).toEqual(['active', 'expired']);
    for (const silence of deploys)
      expect(Date.parse(silence.endsAt) - Date.parse(silence.startsAt)).toBeLessThanOrEqual(7_200_000);
    expect(outputs[0]).toMatch(/^sil_\S+\s+expired\s+monitor=checkout\s/m);
    const window = await read<MaintenanceWindow>('/maintenance-windows/saturday-patching');
    expect(window).toMatchObject({
      description: 'OS patches',
      schedule: { type: 'cron', cron: '0 23 * * 6', timezone: 'Europe/Berlin', durationMinutes: 180 },
      excludeFromFigures: true,
    });
    expect(outputs[2]).toMatch(/^saturday-patching\s+cron "0 23 \* \* 6" Europe\/Berlin for 180m\s/m);
    expect(outputs[3]).toBe('maintenancewindow saturday-patching unchanged\n');
    const rule = 'FREQ=MONTHLY;BYDAY=SA;BYSETPOS=-1;BYHOUR=22;BYMINUTE=0';
    const monthEnd = await read<MaintenanceWindow>('/maintenance-windows/month-end-upgrade');
    expect(monthEnd.schedule).toMatchObject({ type: 'rrule', rrule: rule, durationMinutes: 240 });
    // The last Saturday of a month, at 22:00 Berlin time (20:00Z or 21:00Z).
    const next = new Date(monthEnd.next?.start ?? '');
    expect([
      next.getUTCDay(),
      next.getUTCMonth() === new Date(next.getTime() + 7 * 86_400_000).getUTCMonth(),
    ]).toEqual([6, false]);
    expect(outputs[4]).toContain(`rrule "${rule}" Europe/Berlin for 240m`);
  });
});
