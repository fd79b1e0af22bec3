import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../../db/database.js';
import { countUnfinishedRuns } from '../metric-runs.repository.js';
import { cachedRead } from './cached-read.js';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';
import { listMonitorLocations } from './monitor-catalog.repository.js';

const CACHE_MS = 15_000;
const STATUSES = ['pending', 'running'] as const;

/**
 * Runs waiting (`pending`) and executing (`running`) per location, read from the database at most once per
 * 15 s however often it is scraped. Every location a monitor runs in has both series, at 0 when its queue is
 * empty, so a panel or alert on an idle location reads 0 rather than nothing. Every hub replica reports the
 * same figure: aggregate with max(), not sum().
 */
export function registerQueueDepthMetrics(registry: Registry, db: Db, now: () => number = Date.now): void {
  const read = cachedRead(
    async () => {
      const [counts, locations] = await Promise.all([countUnfinishedRuns(db), listMonitorLocations(db)]);
      return { counts, locations };
    },
    CACHE_MS,
    now,
  );
  new Gauge({
    name: `${METRIC_PREFIX}runs_queued`,
    help: 'Runs pending or running, by location and status (from the database; identical on every replica).',
    labelNames: ['location', 'status'],
    registers: [registry],
    async collect() {
      const figures = await read();
      // Nothing read yet (the database away since start): the series are left out, not made up.
      if (figures === undefined) return;
      const { counts, locations } = figures;
      this.reset();
      for (const location of locations) for (const status of STATUSES) this.set({ location, status }, 0);
      for (const row of counts) this.set({ location: row.location, status: row.status }, row.count);
    },
  });
}
