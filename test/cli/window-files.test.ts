// `meerkat maintenance create --rrule`, and `diff -f` / `delete -f` on files mixing Monitor and MaintenanceWindow
// documents, as real CLI processes against the real API.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';
import type { MaintenanceWindow } from '../../hub/src/maintenance/maintenance.schema.js';

const wait = { nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }], edges: [] };
const saturdayRule = 'FREQ=WEEKLY;BYDAY=SA;BYHOUR=22;BYMINUTE=0';
const windowResource = (name: string, durationMinutes: number) => ({
  apiVersion: 'meerkat.dev/v1alpha1',
  kind: 'MaintenanceWindow',
  metadata: { name },
  spec: {
    matchers: [{ label: 'monitor', values: ['cart'] }],
    schedule: {
      type: 'rrule',
      rrule: saturdayRule,
      startsAt: '2026-01-01T00:00:00Z',
      timezone: 'Europe/Berlin',
      durationMinutes,
    },
  },
});

describe('meerkat RRULE windows and window files', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const meerkat = (...args: string[]) => runMeerkat(args, env);
  const windowStatus = async (name: string) =>
    (await hub.request('GET', `/maintenance-windows/${name}`)).status;

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-window-files-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('maintenance create --rrule stores a rule window; a bad rule, or --cron with --rrule, exits 2', async () => {
    const flags = ['--monitor', 'cart', '--timezone', 'Europe/Berlin', '-d', '3h'];
    const created = await meerkat(
      'maintenance',
      'create',
      'saturday',
      ...flags,
      '--rrule',
      saturdayRule,
      '--start',
      '2026-01-01T00:00:00Z',
    );
    expect([created.code, created.stdout, created.stderr]).toEqual([
      0,
      'maintenancewindow saturday created\n',
      '',
    ]);
    const stored = (
      (await (await hub.request('GET', '/maintenance-windows/saturday')).json()) as {
        data: MaintenanceWindow;
      }
    ).data;
    expect(stored.schedule).toEqual({
      type: 'rrule',
      rrule: saturdayRule,
      startsAt: '2026-01-01T00:00:00Z',
      timezone: 'Europe/Berlin',
      durationMinutes: 180,
    });
    expect(stored.next).not.toBeNull();
    const listed = await meerkat('maintenance', 'list', 'saturday');
    expect(listed.stdout).toContain(`rrule "${saturdayRule}" Europe/Berlin for 180m`);

    const minutely = await meerkat('maintenance', 'create', 'bad', ...flags, '--rrule', 'FREQ=MINUTELY');
    expect([minutely.code, minutely.stderr]).toEqual([
      2,
      'meerkat: schedule.rrule: FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY, not MINUTELY\n',
    ]);
    const both = await meerkat(
      'maintenance',
      'create',
      'bad',
      ...flags,
      '--rrule',
      saturdayRule,
      '--cron',
      '0 1 * * *',
    );
    expect([both.code, both.stderr]).toEqual([2, 'meerkat: give --cron or --rrule, not both\n']);
    expect(await windowStatus('bad')).toBe(404);
    expect((await meerkat('maintenance', 'delete', 'saturday')).code).toBe(0);
  });

  it('diff -f compares Monitor and MaintenanceWindow documents: exit 1 on a difference, 0 when none', async () => {
    const monitor = monitorDefinition({ name: 'cart', ...wait });
    await hub.request('POST', '/monitor/', { as: 'acmeEditor', body: monitor });
    const file = join(work, 'mixed.yaml');
    writeFileSync(file, [monitor, windowResource('weekend', 120)].map((d) => stringifyYaml(d)).join('---\n'));
    const toCreate = await meerkat('diff', '-f', file);
    expect([toCreate.code, toCreate.stdout, toCreate.stderr]).toEqual([
      1,
      'maintenancewindow weekend would be created\n',
      '',
    ]);
    expect(await windowStatus('weekend')).toBe(404);

    expect((await meerkat('apply', '-f', file)).code).toBe(0);
    const same = await meerkat('diff', '-f', file);
    expect([same.code, same.stdout, same.stderr]).toEqual([0, '', '']);

    writeFileSync(file, [monitor, windowResource('weekend', 240)].map((d) => stringifyYaml(d)).join('---\n'));
    const changed = await meerkat('diff', '-f', file);
    expect([changed.code, changed.stdout]).toEqual([
      1,
      'maintenancewindow weekend would be changed\n    schedule.durationMinutes: 120 -> 240\n',
    ]);
  });

  it('delete -f deletes the monitors and the windows a mixed file names; a missing window exits 1', async () => {
    const monitor = monitorDefinition({ name: 'checkout', ...wait });
    const file = join(work, 'delete.yaml');
    writeFileSync(file, [monitor, windowResource('nightly', 60)].map((d) => stringifyYaml(d)).join('---\n'));
    expect((await meerkat('apply', '-f', file)).code).toBe(0);
    const deleted = await meerkat('delete', '-f', file);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toMatch(
      /^monitor shop\/production\/checkout deleted \(mon_\S+\)\nmaintenancewindow nightly deleted\n$/,
    );
    expect(await windowStatus('nightly')).toBe(404);
    const again = await meerkat('delete', '-f', file);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('meerkat: maintenance window "nightly" not found\n');
    expect((await meerkat('delete', '-f', file, '--ignore-not-found')).code).toBe(0);
  });
});
