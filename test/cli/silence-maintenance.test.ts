// `meerkat silence`, `meerkat maintenance` and `get silences|maintenancewindows`, as real CLI processes against the
// real API.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import type { MaintenanceWindow, Silence } from '../../hub/src/maintenance/maintenance.schema.js';

describe('meerkat silence and maintenance', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const meerkat = (...args: string[]) => runMeerkat(args, env);
  const silenceOf = async (id: string) =>
    ((await (await hub.request('GET', `/silences/${id}`)).json()) as { data: Silence }).data;
  const windowOf = async (name: string) =>
    ((await (await hub.request('GET', `/maintenance-windows/${name}`)).json()) as { data: MaintenanceWindow })
      .data;

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-silence-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('creates a deploy silence, lists it, expires it and keeps it listed as expired', async () => {
    const before = Date.now();
    const created = await meerkat(
      'silence',
      'create',
      '--monitor',
      'checkout',
      '--for',
      '2h',
      '-m',
      'deploying',
    );
    expect([created.code, created.stderr]).toEqual([0, '']);
    const id = created.stdout.trim();
    const stored = await silenceOf(id);
    expect(stored).toMatchObject({
      matchers: [{ label: 'monitor', operator: '=', values: ['checkout'] }],
      comment: 'deploying',
      state: 'active',
    });
    const lasts = Date.parse(stored.endsAt) - Date.parse(stored.startsAt);
    expect(lasts).toBe(2 * 3_600_000);
    expect(Date.parse(stored.startsAt)).toBeGreaterThanOrEqual(before - 1000);

    const table = await meerkat('get', 'silences');
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATE\s+MATCHERS\s+ENDS\s+CREATED BY\s+COMMENT$/);
    expect(table.stdout).toMatch(
      new RegExp(`^${id}\\s+active\\s+monitor=checkout\\s+in (1h|2h|1\\d\\dm)\\s+\\S+\\s+deploying$`, 'm'),
    );

    const expired = await meerkat('silence', 'expire', id);
    expect([expired.code, expired.stdout]).toEqual([0, `silence ${id} expired\n`]);
    expect((await silenceOf(id)).state).toBe('expired');
    const audit = JSON.parse(
      (await meerkat('silence', 'list', '--state', 'expired', '-o', 'json')).stdout,
    ) as Silence[];
    expect(audit.map((s) => [s.id, s.state])).toEqual([[id, 'expired']]);
    expect((await meerkat('get', 'silences', '--state', 'active', '-o', 'name')).stdout).toBe('');
  });

  it('takes amtool-style matchers, an end time, a start and an author', async () => {
    const created = await meerkat(
      'silence',
      'add',
      'project=shop',
      'location!=eu-west,us-east',
      '--environment',
      'production',
      '--start',
      '2030-01-01T10:00:00Z',
      '--until',
      '2030-01-01T12:00:00Z',
      '--comment',
      'night work',
      '--author',
      'ops@example.com',
    );
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    expect(await silenceOf(id)).toMatchObject({
      matchers: [
        { label: 'project', operator: '=', values: ['shop'] },
        { label: 'location', operator: '!=', values: ['eu-west', 'us-east'] },
        { label: 'environment', operator: '=', values: ['production'] },
      ],
      startsAt: '2030-01-01T10:00:00.000Z',
      endsAt: '2030-01-01T12:00:00.000Z',
      state: 'pending',
      createdBy: 'ops@example.com',
    });
    const one = parseYaml((await meerkat('get', 'silence', id, '-o', 'yaml')).stdout) as Silence;
    expect(one).toMatchObject({ id, state: 'pending' });
  });

  it('refuses bad input with exit 2 naming what is wrong, and exits 1 for a silence that is not there', async () => {
    const noLabel = await meerkat('silence', 'create', 'team=payments', '-d', '1h', '-m', 'x');
    expect([noLabel.code, noLabel.stderr]).toEqual([
      2,
      'meerkat: matcher "team=payments": the label must be one of monitor, monitorId, project, environment, location\n',
    ]);
    const nothing = await meerkat('silence', 'create', '-d', '1h', '-m', 'x');
    expect(nothing.code).toBe(2);
    const noEnd = await meerkat('silence', 'create', '--monitor', 'a', '-m', 'x');
    expect([noEnd.code, noEnd.stderr]).toEqual([
      2,
      'meerkat: give how long (--duration 2h) or until when (--until TIME)\n',
    ]);
    const badDuration = await meerkat('silence', 'create', '--monitor', 'a', '-d', 'soon', '-m', 'x');
    expect([badDuration.code, badDuration.stderr]).toEqual([
      2,
      'meerkat: duration: a duration such as 30m, 2h or 1d12h\n',
    ]);
    expect((await meerkat('silence', 'create', '--monitor', 'a', '-d', '1h')).code).toBe(2);
    const missing = await meerkat('silence', 'expire', 'sil_nope');
    expect(missing.code).toBe(1);
    const viewer = await runMeerkat(['silence', 'create', '--monitor', 'a', '-d', '1h', '-m', 'x'], {
      ...env,
      MEERKAT_API_KEY: hub.keys.acmeViewer,
    });
    expect(viewer.code).toBe(3);
  });

  it('creates a weekly window and a one-off window, lists them and deletes them', async () => {
    const weekly = await meerkat(
      'maintenance',
      'create',
      'saturday-patching',
      '--project',
      'shop',
      'environment=production',
      '--cron',
      '0 23 * * 6',
      '--timezone',
      'Europe/Berlin',
      '--duration',
      '3h',
      '--description',
      'OS patches',
    );
    expect([weekly.code, weekly.stdout, weekly.stderr]).toEqual([
      0,
      'maintenancewindow saturday-patching created\n',
      '',
    ]);
    expect(await windowOf('saturday-patching')).toMatchObject({
      schedule: { type: 'cron', cron: '0 23 * * 6', timezone: 'Europe/Berlin', durationMinutes: 180 },
      matchers: [
        { label: 'environment', values: ['production'] },
        { label: 'project', values: ['shop'] },
      ],
      excludeFromFigures: true,
      description: 'OS patches',
    });
    const once = await meerkat(
      'maintenance',
      'create',
      'db-upgrade',
      '--monitor',
      'checkout',
      '--start',
      '2030-06-01T02:00:00Z',
      '--duration',
      '90m',
      '--count-in-figures',
    );
    expect(once.code).toBe(0);
    expect(await windowOf('db-upgrade')).toMatchObject({
      schedule: { type: 'once', startsAt: '2030-06-01T02:00:00Z', endsAt: '2030-06-01T03:30:00.000Z' },
      excludeFromFigures: false,
      current: null,
    });

    const table = await meerkat('get', 'maintenancewindows', '-o', 'wide');
    expect(table.stdout.split('\n')[0]).toMatch(
      /^NAME\s+SCHEDULE\s+MATCHERS\s+ACTIVE\s+NEXT\s+FIGURES\s+DESCRIPTION$/,
    );
    expect(table.stdout).toMatch(
      /^saturday-patching\s+cron "0 23 \* \* 6" Europe\/Berlin for 180m\s+environment=production project=shop\s+(no|until \S+)\s+in \d+[smhd]\s+excluded\s+OS patches$/m,
    );
    expect((await meerkat('maintenance', 'list', '-o', 'name')).stdout).toBe(
      'maintenancewindow/db-upgrade\nmaintenancewindow/saturday-patching\n',
    );
    const replaced = await meerkat(
      'maintenance',
      'create',
      'db-upgrade',
      '--monitor',
      'checkout',
      '--start',
      '2030-06-01T02:00:00Z',
      '--until',
      '2030-06-01T05:00:00Z',
    );
    expect(replaced.stdout).toBe('maintenancewindow db-upgrade replaced\n');

    const deleted = await meerkat('maintenance', 'delete', 'db-upgrade', 'nope');
    expect([deleted.code, deleted.stdout, deleted.stderr]).toEqual([
      1,
      'maintenancewindow db-upgrade deleted\n',
      'meerkat: maintenance window "nope" not found\n',
    ]);
    expect((await meerkat('maintenance', 'delete', 'nope', '--ignore-not-found')).code).toBe(0);
    expect((await meerkat('get', 'mw', 'db-upgrade')).code).toBe(1);
  });

  it('refuses a window without a schedule, or one the hub finds invalid, with exit 2', async () => {
    const noSchedule = await meerkat('maintenance', 'create', 'w', '--monitor', 'a');
    expect(noSchedule.code).toBe(2);
    const badZone = await meerkat(
      'maintenance',
      'create',
      'w',
      '--monitor',
      'a',
      '--cron',
      '0 1 * * *',
      '--timezone',
      'Mars/Base',
      '-d',
      '1h',
    );
    expect([badZone.code, badZone.stderr]).toEqual([
      2,
      'meerkat: schedule.timezone: an IANA time zone such as Europe/Berlin\n',
    ]);
    const badName = await meerkat(
      'maintenance',
      'create',
      'Bad_Name',
      '--monitor',
      'a',
      '--cron',
      '0 1 * * *',
      '--timezone',
      'UTC',
      '-d',
      '1h',
    );
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/^meerkat: name: lowercase letters/);
  });

  it('applies MaintenanceWindow resources, and takes back what get -o yaml prints unchanged', async () => {
    const resource = {
      apiVersion: 'meerkat.dev/v1alpha1',
      kind: 'MaintenanceWindow',
      metadata: { name: 'nightly-backup' },
      spec: {
        matchers: [{ label: 'monitor', values: ['reports'] }],
        schedule: { type: 'cron', cron: '30 1 * * *', timezone: 'America/New_York', durationMinutes: 30 },
      },
    };
    const file = join(work, 'window.yaml');
    writeFileSync(file, stringifyYaml(resource));
    const applied = await meerkat('apply', '-f', file);
    expect([applied.code, applied.stdout, applied.stderr]).toEqual([
      0,
      'maintenancewindow nightly-backup created\n',
      '',
    ]);
    expect(await windowOf('nightly-backup')).toMatchObject({
      excludeFromFigures: true,
      matchers: [{ label: 'monitor' }],
    });

    const printed = join(work, 'printed.yaml');
    writeFileSync(
      printed,
      (await meerkat('get', 'maintenancewindow', 'nightly-backup', '-o', 'yaml')).stdout,
    );
    expect((await meerkat('apply', '-f', printed, '--diff-exit-code')).stdout).toBe(
      'maintenancewindow nightly-backup unchanged\n',
    );

    writeFileSync(
      file,
      stringifyYaml({ ...resource, spec: { ...resource.spec, excludeFromFigures: false } }),
    );
    const dryRun = await meerkat('apply', '-f', file, '--dry-run', '--diff-exit-code');
    expect([dryRun.code, dryRun.stdout]).toEqual([
      1,
      'maintenancewindow nightly-backup would be changed\n    excludeFromFigures: true -> false\n',
    ]);
    expect((await windowOf('nightly-backup')).excludeFromFigures).toBe(true);

    writeFileSync(
      file,
      stringifyYaml({ ...resource, spec: { ...resource.spec, schedule: { type: 'cron' } } }),
    );
    const invalid = await meerkat('apply', '-f', file);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`${file}:1: spec.schedule.cron:`);
  });
});
