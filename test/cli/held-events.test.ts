// A silence made with `meerkat silence create` holds a failing run's notification, and `meerkat get events` shows
// the event as held by that silence: the CLI side of "a held notification is visible in the events log".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMeerkat } from '../harness/processes.js';
import { startMaintenanceBed, type MaintenanceBed } from '../maintenance/maintenance-fixtures.js';
import { putMonitor } from '../notifications/notification-fixtures.js';

describe('meerkat get events and a CLI silence', { timeout: 180_000 }, () => {
  let bed: MaintenanceBed;
  let work: string;
  let env: Record<string, string>;
  const meerkat = (...args: string[]) => runMeerkat(args, env);

  beforeAll(async () => {
    bed = await startMaintenanceBed();
    work = mkdtempSync(join(tmpdir(), 'meerkat-held-'));
    env = {
      MEERKAT_URL: bed.hub.url,
      MEERKAT_API_KEY: bed.hub.keys.acmeEditor,
      MEERKAT_CONFIG: join(work, 'none'),
    };
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await bed.close();
  });

  it('lists the held event with the silence that held it, and the one it did not match without', async () => {
    const rules = [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, cooldownMinutes: 0 },
    ];
    expect((await putMonitor(bed.hub, 'deploying-1', rules, 'payments')).status).toBeLessThan(300);
    bed.setNow(new Date('2026-03-03T10:00:00Z'));
    const created = await meerkat(
      'silence',
      'create',
      '--monitor',
      'payments',
      '--location',
      'eu-west',
      '--for',
      '1h',
      '-m',
      'deploying',
    );
    expect(created.code).toBe(0);
    const silenceId = created.stdout.trim();
    await bed.finish('deploying-1', false, new Date('2026-03-03T10:05:00Z'));
    await bed.finish('deploying-1', false, new Date('2026-03-03T10:06:00Z'), 'us-east');

    const { code, stdout } = await meerkat('get', 'events');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^ID\s+MONITOR\s+REASON\s+CHANNELS\s+HELD BY\s+AGE$/);
    const rows = stdout.split('\n').filter((line) => line.includes('payments'));
    expect(rows).toHaveLength(2);
    // The silence matches eu-west only: us-east's failure was sent at once, held by nothing.
    expect(rows.filter((row) => row.includes(`silence/${silenceId}`))).toHaveLength(1);
  });
});
