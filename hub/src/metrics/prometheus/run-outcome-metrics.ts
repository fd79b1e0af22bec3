import { ERROR_CLASSES } from '../../runner/run-outcome.js';
import type { RunFinishedHook } from '../../runs/run-finished.js';
import { errorClassOfRun } from '../run-error-class.js';
import { cachedRead } from './cached-read.js';
import { METRIC_PREFIX, type MeerkatRegistry } from '../../system/metrics-registry.js';
import { createRunSeriesExposition, type RunLabels } from './run-series-exposition.js';
import type { CatalogMonitor } from './monitor-catalog.repository.js';
import { createTlsExpiryGauge } from './tls-expiry-gauge.js';

// Seconds, from 5 ms (a fast API answers within 10 ms from the same cluster) to 2 minutes (the default run
// timeout).
export const RUN_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const CATALOG_MS = 30_000;

/** Which monitors this process keeps series for: every monitor that runs in a location it records. */
export interface RunSeriesCatalog {
  /** Every monitor (`listMonitorCatalog`), read at most once per 30 s however often the process is scraped. */
  read(): Promise<CatalogMonitor[]>;
  /** The locations whose results this process records: a worker's, the hub's `job` locations, all for `dev`. */
  locations: readonly string[];
}

const keyOf = (l: RunLabels) => JSON.stringify([l.organization, l.monitor, l.location]);

/**
 * Counts the runs this process finished, by organization, monitor id, location, environment and outcome; the
 * labels are bounded by configuration (never a run id, URL or error text). A monitor id is unique only within
 * its organization, so without `organization` two organizations' `web-1` would add up in one series.
 *
 * Every monitor of the catalog that runs in a location of this process has all its series at 0 from the first
 * scrape after it is created (each outcome, each error class, the histogram), so `increase()` sees its first
 * run and its first failure; a monitor deleted (or a location it left) loses its series at the first scrape
 * whose catalog read began after its last run. The hook runs in the run-result transaction: a transaction that
 * then rolls back leaves the count one high, which is rare and preferable to missing runs.
 */
export function createRunOutcomeMetrics(
  registry: MeerkatRegistry,
  catalog: RunSeriesCatalog,
  now: () => number = Date.now,
): RunFinishedHook {
  const series = createRunSeriesExposition({
    prefix: METRIC_PREFIX,
    errorClasses: ERROR_CLASSES,
    buckets: RUN_DURATION_BUCKETS,
    defaultLabels: { process: registry.processKind },
  });
  registry.addExposition(async () => {
    await syncWithCatalog();
    return series.render();
  });

  const tlsExpiry = createTlsExpiryGauge(registry);

  const remove = (labels: RunLabels) => {
    series.remove(labels);
    tlsExpiry.remove(labels);
  };

  const served = new Set(catalog.locations);
  const readCatalog = cachedRead(
    async () => {
      const at = now();
      return { at, monitors: await catalog.read() };
    },
    CATALOG_MS,
    now,
  );
  // A failed read leaves the series as they are: the counters stay scrapeable while the database is away.
  async function syncWithCatalog(): Promise<void> {
    const snapshot = await readCatalog().catch(() => undefined);
    if (snapshot === undefined) return;
    const { at, monitors } = snapshot;
    // A monitor's series stay while it runs in that location, even one this process does not serve (a runner
    // may report a run of any location through the hub); zero series are made for served locations only.
    const present = new Set<string>();
    for (const m of monitors)
      for (const location of m.locations) {
        const labels = {
          organization: m.organizationId,
          monitor: m.monitorId,
          location,
          environment: m.environment,
        };
        present.add(keyOf(labels));
        if (served.has(location) && !series.has(labels)) series.ensure(labels, at);
      }
    // Series a run touched after the read began may belong to a monitor created since: they wait for the next.
    for (const { labels, touchedAt } of series.entries())
      if (touchedAt < at && !present.has(keyOf(labels))) remove(labels);
  }

  return {
    name: 'prometheus-run-outcomes',
    onRunsFinished(_tx, finished) {
      for (const run of finished) {
        const labels = {
          organization: run.organization_id,
          monitor: run.monitor_id,
          location: run.location,
          environment: run.environment,
        };
        const success = run.success === true;
        series.record(labels, now(), {
          success,
          ...(success ? {} : { errorClass: errorClassOfRun(run.steps) }),
          ...(run.duration_ms === null ? {} : { seconds: run.duration_ms / 1000 }),
        });
        tlsExpiry.record(labels, run.steps);
      }
      return Promise.resolve();
    },
  };
}
