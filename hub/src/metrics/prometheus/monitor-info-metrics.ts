import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../../db/database.js';
import { cachedRead } from './cached-read.js';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';
import { listMonitorCatalog } from './monitor-catalog.repository.js';

const CACHE_MS = 30_000;

/**
 * `meerkat_monitor_info{organization, monitor, name, project, environment} 1` for every monitor, so an alert or a
 * panel keyed by monitor id can show its name and project:
 * `... * on (organization, monitor) group_left (name, project) max by (organization, monitor, name, project) (meerkat_monitor_info)`.
 * Read at most once per 30 s however often it is scraped; a deleted monitor's series goes with the next read.
 * Every hub replica reports the same series: aggregate with max(), never sum().
 */
export function registerMonitorInfoMetrics(registry: Registry, db: Db, now: () => number = Date.now): void {
  const catalog = cachedRead(() => listMonitorCatalog(db), CACHE_MS, now);
  new Gauge({
    name: `${METRIC_PREFIX}monitor_info`,
    help: 'Always 1: the name, project and environment of each monitor, to join on (organization, monitor).',
    labelNames: ['organization', 'monitor', 'name', 'project', 'environment'],
    registers: [registry],
    async collect() {
      const monitors = await catalog();
      // Nothing read yet (the database away since start): the series are left out, not made up.
      if (monitors === undefined) return;
      this.reset();
      for (const m of monitors)
        this.set(
          {
            organization: m.organizationId,
            monitor: m.monitorId,
            name: m.name,
            project: m.project,
            environment: m.environment,
          },
          1,
        );
    },
  });
}
