import { Counter, Gauge, type Registry } from 'prom-client';
import type { Db } from '../../db/database.js';
import type { DropReason, DeliveredRunJob } from '../../runs/run-queue.js';
import { runCheck, type ReadinessCheck } from '../../system/system.routes.js';
import { findOverdueMonitors } from '../overdue-monitors.js';
import { cachedRead } from './cached-read.js';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';

const DROP_REASONS: readonly DropReason[] = ['dependency_unavailable', 'shutdown', 'error'];
const OVERDUE_CACHE_MS = 5_000;

/**
 * Runs this worker gave up for good, by location and reason: a slot or a triggered run that will never have a
 * result. Every (location, reason) starts at 0, so `increase()` sees the first one.
 */
export function createRunsDroppedMetric(
  registry: Registry,
  locations: readonly string[],
): (job: DeliveredRunJob, reason: DropReason) => void {
  const dropped = new Counter({
    name: `${METRIC_PREFIX}runs_dropped_total`,
    help: 'Runs given up without a result (their dependency stayed away, or the job failed), by location and reason.',
    labelNames: ['location', 'reason'],
    registers: [registry],
  });
  for (const location of locations) for (const reason of DROP_REASONS) dropped.inc({ location, reason }, 0);
  return (job, reason) => dropped.inc({ location: job.data.location, reason });
}

/** 1 while a dependency answers this process, 0 while it does not: read at each scrape, bounded in time. */
export function registerDependencyMetrics(registry: Registry, checks: readonly ReadinessCheck[]): void {
  new Gauge({
    name: `${METRIC_PREFIX}dependency_up`,
    help: 'Whether the dependency (database, redis) answered this process at the last scrape (1) or not (0).',
    labelNames: ['dependency'],
    registers: [registry],
    async collect() {
      const outcomes = await Promise.all(
        checks.map(async (check) => [check.name, (await runCheck(check)) === 'ok' ? 1 : 0] as const),
      );
      for (const [dependency, up] of outcomes) this.set({ dependency }, up);
    },
  });
}

/** Monitors with no run for twice their frequency, per organization (the hub reads it from the database). */
export function registerOverdueMonitorsMetric(
  registry: Registry,
  db: Db,
  now: () => number = Date.now,
): void {
  const read = cachedRead(() => findOverdueMonitors(db, new Date(now())), OVERDUE_CACHE_MS, now);
  new Gauge({
    name: `${METRIC_PREFIX}monitors_overdue`,
    help: 'Monitors with no finished run for twice their frequency, by organization (identical on every hub replica).',
    labelNames: ['organization'],
    registers: [registry],
    async collect() {
      const counts = await read();
      // Nothing read yet (the database away since start): the series are left out, not made up.
      if (counts === undefined) return;
      this.reset();
      for (const { organizationId, overdue } of counts)
        this.set({ organization: organizationId }, overdue.size);
    },
  });
}
