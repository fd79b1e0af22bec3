import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../hub/src/db/database.js';
import { createGapRecorder } from '../../hub/src/ledger/gap-recorder.js';
import type { SlotGap } from '../../hub/src/ledger/slot-gap.js';
import { registerSlotsMissedMetric } from '../../hub/src/ledger/slots-missed-metric.js';
import { eventually } from '../harness/eventually.js';
import { gapTotals, insertLedgerMonitor, ORG } from '../ledger/ledger-rows.js';
import { samplesOf } from '../metrics/prometheus-samples.js';
import { startFaultDeployment, type FaultDeployment } from './fault-deployment.js';

const gap = (slotMs: number, reason: SlotGap['reason']): SlotGap => ({
  organizationId: ORG,
  monitorId: 'gappy',
  location: 'default',
  slotMs,
  reason,
});

// A worker's recorder (here in the test process) while PostgreSQL is stopped, and the counter a real hub process
// reads from the totals: it counts gaps recorded by a process other than the one scraped.
describe('slot gaps recorded through a PostgreSQL outage, counted on a real hub', () => {
  let deployment: FaultDeployment;
  let db: Db;
  beforeAll(async () => {
    deployment = await startFaultDeployment(['hub']);
    ({ db } = openDatabase({ url: deployment.bed.postgres.url, dataDir: '/nonexistent' }));
    await insertLedgerMonitor(db, { id: 'gappy', createdAt: new Date() });
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await deployment?.close();
  }, 60_000);

  const hubSamples = async () =>
    samplesOf(await (await fetch(deployment.hub().metricsUrl)).text(), 'meerkat_slots_missed_total');
  const valueOf = (samples: Array<{ labels: Record<string, string>; value: number }>, reason: string) =>
    samples.find((s) => s.labels.location === 'default' && s.labels.reason === reason)?.value;

  it('keeps gaps while the database is away, writes them once it returns, and the hub counts them', async () => {
    // Every reason of every location is there from the start, at 0.
    const initial = await hubSamples();
    expect(valueOf(initial, 'skipped_saturated')).toBe(0);
    expect(valueOf(initial, 'lost')).toBe(0);

    let nowMs = Date.now();
    const registry = new Registry();
    registerSlotsMissedMetric(registry, db, ['default'], () => nowMs);
    const localValue = async (reason: string) => {
      nowMs += 10_000; // past the cache
      return valueOf(samplesOf(await registry.metrics(), 'meerkat_slots_missed_total'), reason);
    };

    const recorder = createGapRecorder({ db, log: pino({ level: 'silent' }), flushIntervalMs: 100 });
    const base = Math.floor(Date.now() / 1000) * 1000;
    recorder.record([gap(base, 'dropped_dependency')]);
    await eventually('the first gap', async () =>
      (await gapTotals(db))['default/dropped_dependency'] === 1 ? true : undefined,
    );
    expect(await localValue('dropped_dependency')).toBe(1);

    await deployment.bed.postgres.stopImmediately();
    recorder.record([gap(base + 1000, 'skipped_saturated'), gap(base + 2000, 'skipped_saturated')]);
    recorder.record([gap(base + 3000, 'skipped_saturated')]);
    await sleep(1_500); // several flushes fail meanwhile
    // The scrape answers with the last values read: the read fails (or is cut short) without failing it.
    expect(await localValue('dropped_dependency')).toBe(1);
    expect(await localValue('skipped_saturated')).toBe(0);

    await deployment.bed.postgres.start();
    await eventually(
      'the kept gaps written',
      async () =>
        (await gapTotals(db).catch((): Record<string, number> => ({})))['default/skipped_saturated'] === 3
          ? true
          : undefined,
      30_000,
    );
    const rows = await db
      .selectFrom('slot_gaps')
      .select(['schedule_slot', 'reason'])
      .orderBy('schedule_slot')
      .execute();
    expect(rows).toEqual([
      { schedule_slot: String(base), reason: 'dropped_dependency' },
      { schedule_slot: String(base + 1000), reason: 'skipped_saturated' },
      { schedule_slot: String(base + 2000), reason: 'skipped_saturated' },
      { schedule_slot: String(base + 3000), reason: 'skipped_saturated' },
    ]);
    await recorder.close();
    expect(await localValue('skipped_saturated')).toBe(3);

    // The hub process, which saw none of it, counts it from the database.
    await eventually(
      'the hub counting the gaps',
      async () => {
        const samples = await hubSamples();
        return valueOf(samples, 'skipped_saturated') === 3 && valueOf(samples, 'dropped_dependency') === 1
          ? true
          : undefined;
      },
      30_000,
    );
  });
});
