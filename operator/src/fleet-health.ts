// The health of every Monitor in one paged read (ADR 0049): `GET /metrics/monitors` answers 100 monitors a page,
// so a refresh period costs the hub ceil(monitors / 100) requests instead of one metrics GET per Monitor. Each
// sweep keeps the rows (reconcile reads its Monitor's row) and hands the queue only the Monitors whose figures,
// as coarse as the status shows them (ADR 0054), differ from their status: a fleet whose health does not move costs
// no reconcile, no per-Monitor hub read and no status write.
import type { Logger } from 'pino';
import type { MonitorHealthRow } from '../../hub/src/client/hub-client.js';
import { coarseSuccessRate } from './coarse-figures.js';
import type { MonitorResourceStatus } from './monitor-resource-status.js';

/** The last sweep's row of a hub monitor id; undefined when the last sweep did not list it (or none ran yet). */
export interface FleetHealth {
  rowOf(monitorId: string): MonitorHealthRow | undefined;
}

/** The status fields a row decides; `lastRun` times and ids are read only when one of these moves. */
interface HealthView {
  health: string | undefined;
  successRate: string | undefined;
  lastRunResult: string | undefined;
}

/** The row's figures as withHealth would show them, coarse (ADR 0054); latency is not among them (ADR 0063). */
function viewOfRow(row: MonitorHealthRow): HealthView {
  const ran = row.runCount > 0;
  return {
    health: ran ? row.status : 'unknown',
    successRate: ran ? coarseSuccessRate(row.successRate) : undefined,
    lastRunResult: row.lastRunAt === null ? undefined : row.lastRunSuccess ? 'Passed' : 'Failed',
  };
}

/** Whether the row says something the status does not (as withHealth would write it from these figures). */
export function healthDiffers(status: MonitorResourceStatus | undefined, row: MonitorHealthRow): boolean {
  const now = status ?? {};
  const view = viewOfRow(row);
  return (
    view.health !== now.health ||
    view.successRate !== now.successRate ||
    view.lastRunResult !== now.lastRunResult
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
