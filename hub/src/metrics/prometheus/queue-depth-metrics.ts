import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../../db/database.js';
import { countUnfinishedRuns } from '../metric-runs.repository.js';
import { cachedRead } from './cached-read.js';
import { METRIC_PREFIX } from './metrics-registry.js';

const CACHE_MS = 15_000;

/**
 * Runs waiting (`pending`) and executing (`running`) per location, read from the database at most once per
 * 15 s however often it is scraped. Every hub replica reports the same figure: aggregate with max(), not sum().
 */
export function registerQueueDepthMetrics(registry: Registry, db: Db, now: () => number = Date.now): void {
  const counts = cachedRead(() => countUnfinishedRuns(db), CACHE_MS, now);
  new Gauge({
    name: `${METRIC_PREFIX}runs_queued`,
    help: 'Runs pending or running, by location and status (from the database; identical on every replica).',
    labelNames: ['location', 'status'],
    registers: [registry],
    async collect() {
      const rows = await counts();
      this.reset();
      for (const row of rows) this.set({ location: row.location, status: row.status }, row.count);
    },
  });
}
