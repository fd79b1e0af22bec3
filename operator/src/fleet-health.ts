// The health of every Monitor in one paged read (ADR 0049): `GET /metrics/monitors` answers 100 monitors a page,
// so a refresh period costs the hub ceil(monitors / 100) requests instead of one metrics GET per Monitor. Each
// sweep keeps the rows (reconcile writes its Monitor's health from its row, ADR 0073) and hands the queue only the
// Monitors whose figures, as coarse as the status shows them (ADR 0054), differ from their status: a fleet whose
// health does not move costs no reconcile, no per-Monitor hub read and no status write.
import type { Logger } from 'pino';
import type { MonitorHealthRow } from '../../hub/src/client/hub-client.js';
import { healthColumns, type MonitorHealthFigures } from './monitor-health.js';
import type { MonitorResourceStatus } from './monitor-resource-status.js';

/** The last sweep's row of a hub monitor id; undefined when the last sweep did not list it (or none ran yet). */
export interface FleetHealth {
  rowOf(monitorId: string): MonitorHealthRow | undefined;
}

/** The period of the sweep's rows: `listMonitorHealth` reads `GET /metrics/monitors` over 24 hours. */
const ROW_PERIOD_MS = 24 * 60 * 60 * 1000;

/**
 * The row's figures as withHealth takes them: a pass driven by a sweep writes the status from its Monitor's row,
 * with no per-Monitor hub read (ADR 0073). The row's period figures come from the hub's fleet snapshot, its latest
 * run is read at the request: a row that counts no run while its latest run started in the period lists a run
 * recorded after the snapshot, and that run's result stands for the period until the snapshot catches up (as the
 * console's rowHealth does), so a first failure shows `failing` at once, not `unknown` for minutes.
 */
export function figuresOfRow(row: MonitorHealthRow, now: Date): MonitorHealthFigures {
  const { lastRunAt, lastRunSuccess, lastRunId } = row;
  const lastRun =
    lastRunAt === null
      ? null
      : {
          ...(lastRunId === null ? {} : { id: lastRunId }),
          startedAt: lastRunAt,
          durationMs: row.lastRunDurationMs ?? 0,
          success: lastRunSuccess === true,
        };
  const uncounted =
    row.runCount === 0 && lastRun !== null && Date.parse(lastRun.startedAt) >= now.getTime() - ROW_PERIOD_MS;
  if (uncounted)
    return {
      status: lastRun.success ? 'healthy' : 'failing',
      runs: { total: 1, successRate: lastRun.success ? 100 : 0 },
      lastRun,
    };
  return { status: row.status, runs: { total: row.runCount, successRate: row.successRate }, lastRun };
}

/** Whether the row lacks what the status needs: a hub older than ADR 0073 lists no latest run id. */
export function rowLacksLatestRun(row: MonitorHealthRow): boolean {
  return row.lastRunAt !== null && row.lastRunId === null;
}

/**
 * Whether the row says something the status does not, in the fields it decides (as withHealth would write them
 * from the row's figures, coarse: ADR 0054; latency is not among them: ADR 0063). `lastRun` times and ids are
 * written only when one of these moves (ADR 0049).
 */
export function healthDiffers(
  status: MonitorResourceStatus | undefined,
  row: MonitorHealthRow,
  now: Date,
): boolean {
  const current = status ?? {};
  const columns = healthColumns(figuresOfRow(row, now));
  return (
    columns.health !== current.health ||
    columns.successRate !== current.successRate ||
    columns.lastRunResult !== current.lastRunResult
  );
}

export interface FleetHealthSweepOptions {
  /** One paged read of every monitor's row (the hub client's listMonitorHealth). */
  listMonitorHealth: () => Promise<MonitorHealthRow[]>;
  /** Called, after the rows are kept, with each row whose Monitor is known; the caller enqueues what changed. */
  onRow: (row: MonitorHealthRow) => void;
  everyMs: number;
  log: Logger;
}

/** Sweeps at once and then `everyMs` after each sweep ends (never two at once); stop() waits for one in flight. */
export function startFleetHealthSweep(options: FleetHealthSweepOptions): FleetHealth & {
  sweep(): Promise<void>;
  stop(): Promise<void>;
} {
  let rows = new Map<string, MonitorHealthRow>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  async function sweep(): Promise<void> {
    try {
      const listed = await options.listMonitorHealth();
      if (stopped) return;
      rows = new Map(listed.map((row) => [row.monitorId, row]));
      for (const row of listed) options.onRow(row);
    } catch (error) {
      // Health is a view: the last figures stay, the next sweep tries again.
      options.log.warn({ err: error }, 'could not read the monitors’ health');
    }
  }
  function next(): void {
    if (stopped) return;
    inFlight = sweep().finally(() => {
      inFlight = undefined;
      if (!stopped) timer = setTimeout(next, options.everyMs);
    });
  }
  next();
  return {
    rowOf: (monitorId) => rows.get(monitorId),
    sweep,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
