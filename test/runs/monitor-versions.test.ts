import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONITOR_SCHEMA_VERSION } from '../../hub/src/contract/monitor-definition.js';
import type { Db } from '../../hub/src/db/database.js';
import { monitorRowToMonitor, upsertMonitorRow } from '../../hub/src/monitors/monitor.repository.js';
import { desiredSchedules } from '../../hub/src/scheduling/schedules.js';
import { createMonitorReader } from '../../hub/src/worker/monitor-reader.js';
import { databaseEngines } from '../harness/engines.js';
import { monitorDefinition } from '../harness/monitors.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

const WRITTEN = new Date('2026-03-02T10:15:00.123Z');

describe.each(databaseEngines)('a scheduled job names its monitor version, on $name', (engine) => {
  let db: Db;
  let dispose: () => Promise<void>;

  const writeMonitor = (name: string, updatedAt: Date) =>
    db.transaction().execute((tx) =>
      upsertMonitorRow(tx, {
        organization_id: 'acme',
        id: 'checkout',
        project: 'shop',
        environment: 'production',
        name,
        schema_version: MONITOR_SCHEMA_VERSION,
        definition: jsonColumn(monitorDefinition({ name })),
        created_at: WRITTEN,
        updated_at: updatedAt,
      }),
    );

  beforeAll(async () => {
    ({ db, dispose } = await engine.open());
  });
  afterAll(() => dispose());

  it('its schedules carry the version, and a worker that has read it runs it without reading again', async () => {
    const row = await writeMonitor('checkout v1', WRITTEN);
    const [schedule] = desiredSchedules('acme', monitorRowToMonitor(row));
    expect(schedule?.data.version).toBe(WRITTEN.toISOString());

    const reader = createMonitorReader(db);
    expect((await reader.read('acme', 'checkout', schedule?.data.version))?.name).toBe('checkout v1');
    // Changed behind the version's back (the same updated_at): a job of that version is not read again.
    await writeMonitor('checkout v1, changed in place', WRITTEN);
    expect((await reader.read('acme', 'checkout', schedule?.data.version))?.name).toBe('checkout v1');

    // A job of another version, and a job that names none (a manual run), read the monitor.
    const newer = new Date(WRITTEN.getTime() + 1_000);
    await writeMonitor('checkout v2', newer);
    expect((await reader.read('acme', 'checkout', newer.toISOString()))?.name).toBe('checkout v2');
    await writeMonitor('checkout v2, changed in place', newer);
    expect((await reader.read('acme', 'checkout'))?.name).toBe('checkout v2, changed in place');
  });

  it('a warmed reader knows every monitor before a job names it, and each change after its next warm-up', async () => {
    const first = new Date(WRITTEN.getTime() + 10_000);
    await writeMonitor('checkout v3', first);
    const reader = createMonitorReader(db);
    await reader.warm();
    // Changed behind the version's back: a job of that version is served what the warm-up read, no read.
    await writeMonitor('checkout v3, changed in place', first);
    expect((await reader.read('acme', 'checkout', first.toISOString()))?.name).toBe('checkout v3');

    const next = new Date(WRITTEN.getTime() + 20_000);
    await writeMonitor('checkout v4', next);
    await reader.warm();
    await writeMonitor('checkout v4, changed in place', next);
    expect((await reader.read('acme', 'checkout', next.toISOString()))?.name).toBe('checkout v4');
  });
});
