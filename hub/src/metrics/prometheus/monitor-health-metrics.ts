import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../../db/database.js';
import { listOrganizationsWithMonitors } from '../../monitors/monitor.repository.js';
import { healthStatusSchema, listMonitorMetricsQuery, type MonitorMetricsRow } from '../metrics.schema.js';
import type { MetricsService } from '../metrics.service.js';
import { cachedRead } from './cached-read.js';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';
import { registerMonitorInfoMetrics } from './monitor-info-metrics.js';

const CACHE_MS = 30_000;
// The default period of GET /metrics/monitors.
const DEFAULT_PERIOD = listMonitorMetricsQuery.parse({}).period;

interface MonitorHealth extends MonitorMetricsRow {
  organizationId: string;
}

/** Every monitor of every organization, as GET /metrics/monitors reports it over its default period (24h). */
async function readMonitorHealth(db: Db, metrics: Pick<MetricsService, 'rows'>): Promise<MonitorHealth[]> {
  const health: MonitorHealth[] = [];
  for (const organizationId of await listOrganizationsWithMonitors(db))
    for (const row of await metrics.rows(organizationId, { period: DEFAULT_PERIOD }))
      health.push({ organizationId, ...row });
  return health;
}

/**
 * `meerkat_monitor_health` (1 for the monitor's current status, 0 for the other two),
 * `meerkat_monitor_success_ratio` (over the last 24 h, only for monitors that ran) and
 * `meerkat_monitor_in_maintenance` (1 while a maintenance window is in force over it, labelled with the window), read through the metrics
 * service at most once per 30 s however often it is scraped, and by concurrent scrapes together. Every hub
 * replica reports the same figures: aggregate with max(), not sum(). `meerkat_monitor_info` comes with them, to
 * put names on the ids.
 */
export function registerMonitorHealthMetrics(
  registry: Registry,
  deps: { db: Db; metrics: Pick<MetricsService, 'rows'> },
  now: () => number = Date.now,
): void {
  registerMonitorInfoMetrics(registry, deps.db, now);
  const snapshot = cachedRead(() => readMonitorHealth(deps.db, deps.metrics), CACHE_MS, now);
  const labelsOf = (row: MonitorHealth) => ({
    organization: row.organizationId,
    monitor: row.monitorId,
    environment: row.environment,
  });

  new Gauge({
    name: `${METRIC_PREFIX}monitor_health`,
    help: 'Monitor status over the last 24h: 1 for the current status, 0 for the others (identical on every replica).',
    labelNames: ['organization', 'monitor', 'environment', 'status'],
    registers: [registry],
    async collect() {
      const health = await snapshot();
      // Nothing read yet (the database away since start): the series are left out, not made up.
      if (health === undefined) return;
      this.reset();
      for (const row of health)
        for (const status of healthStatusSchema.options)
          this.set({ ...labelsOf(row), status }, row.status === status ? 1 : 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}monitor_success_ratio`,
    help: 'Share of the monitor runs that succeeded over the last 24h, for monitors that ran (identical on every replica).',
    labelNames: ['organization', 'monitor', 'environment'],
    registers: [registry],
    async collect() {
      const health = await snapshot();
      // Nothing read yet (the database away since start): the series are left out, not made up.
      if (health === undefined) return;
      this.reset();
      for (const row of health)
        if (row.runCount > 0) this.set(labelsOf(row), Number((row.successRate / 100).toFixed(4)));
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}monitor_in_maintenance`,
    help: 'Whether a maintenance window is in force over the monitor: 1 or 0, with the window (identical on every replica).',
    labelNames: ['organization', 'monitor', 'environment', 'window'],
    registers: [registry],
    async collect() {
      const health = await snapshot();
      if (health === undefined) return;
      this.reset();
      for (const row of health)
        this.set({ ...labelsOf(row), window: row.maintenance?.name ?? '' }, row.maintenance ? 1 : 0);
    },
  });
}
