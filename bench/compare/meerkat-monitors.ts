// The benchmark's monitors, created through Meerkat's real API (POST /monitor/bulk, a hundred at a time), and the
// run rows and slot gaps read back for the window's slot accounting.
import type { RecordedGap, RecordedRun } from '../../test/faults/slot-accounting.js';
import { getNode, monitorDefinition, statusAssertionNode } from '../../test/harness/monitors.js';
import { createHubClient, HubRequestError } from '../../hub/src/client/hub-client.js';
import { monitorDefinitionSchema } from '../../hub/src/contract/monitor-definition.js';
import { within } from './bounded.js';

const CREATE_CONCURRENCY = 4;
const BULK_SIZE = 100;
const REQUEST_MS = 60_000;

export function monitorIds(count: number, prefix = 'bench'): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);
}

/** One GET of the target and a status check, every `everySeconds`: the unit of work. */
function benchMonitor(targetUrl: string, id: string, everySeconds: number) {
  return monitorDefinition({
    project: 'bench',
    name: id,
    frequency: { every: everySeconds / 60, unit: 'MINUTE' },
    nodes: [getNode('get', targetUrl, '/ok'), statusAssertionNode('check', 'get')],
    edges: [{ from: 'get', to: 'check' }],
  });
}

/**
 * Creates every monitor, a hundred to a `POST /monitor/bulk` (the operator's path: one request of the rate limit
 * per hundred monitors); throws on the first item the hub refuses, and when it takes more than ~1/4 s a monitor.
 */
export async function createMonitors(input: {
  apiUrl: string;
  key: string;
  ids: readonly string[];
  targetUrl: string;
  everySeconds: number;
}): Promise<void> {
  const queue = [...input.ids];
  // The hub client's bulk call, as the operator makes it: an item the hub refused is its HubRequestError.
  const hub = createHubClient(input.apiUrl, input.key, { timeoutMs: REQUEST_MS });
  const createNext = async (): Promise<void> => {
    for (let ids = queue.splice(0, BULK_SIZE); ids.length > 0; ids = queue.splice(0, BULK_SIZE)) {
      const outcomes = await hub.putMonitors(
        ids.map((id) => ({
          id,
          definition: monitorDefinitionSchema.parse(benchMonitor(input.targetUrl, id, input.everySeconds)),
        })),
      );
      const refused = outcomes.flatMap((outcome, index) =>
        outcome instanceof HubRequestError ? [`${ids[index]}: ${outcome.message}`] : [],
      );
      if (refused.length > 0) throw new Error(`POST /monitor/bulk refused ${refused.slice(0, 5).join('; ')}`);
    }
  };
  const creating = Promise.all(Array.from({ length: CREATE_CONCURRENCY }, createNext));
  // A failed or late creation stops the other creators too.
  await within(`creating ${input.ids.length} monitors`, 60_000 + input.ids.length * 250, creating).catch(
    (error: unknown) => {
      queue.length = 0;
      throw error;
    },
  );
}

/** Anything that answers SQL with rows: a pg Client or a PGlite. */
export interface SqlReader {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** The scheduled runs whose slot lies in [fromMs, toMs), of every organization or of `organization`. */
export async function readWindowRuns(
  db: SqlReader,
  fromMs: number,
  toMs: number,
  organization?: string,
): Promise<RecordedRun[]> {
  const { rows } = await db.query<{
    monitor_id: string;
    schedule_slot: string;
    status: RecordedRun['status'];
    started_at: Date | null;
    completed_at: Date | null;
  }>(
    `select monitor_id, schedule_slot, status, started_at, completed_at from runs
     where schedule_slot is not null and schedule_slot::bigint >= $1 and schedule_slot::bigint < $2
       and ($3::text is null or organization_id = $3)`,
    [fromMs, toMs, organization ?? null],
  );
  return rows.map((row) => ({
    monitorId: row.monitor_id,
    scheduleSlot: row.schedule_slot,
    status: row.status,
    startedAt: row.started_at === null ? null : new Date(row.started_at),
    completedAt: row.completed_at === null ? null : new Date(row.completed_at),
  }));
}

/** The slot ledger's gaps of `organization` whose slot lies in [fromMs, toMs). */
export async function readWindowGaps(
  db: SqlReader,
  fromMs: number,
  toMs: number,
  organization: string,
): Promise<RecordedGap[]> {
  const { rows } = await db.query<{ monitor_id: string; schedule_slot: string; reason: string }>(
    `select monitor_id, schedule_slot, reason from slot_gaps
     where organization_id = $3 and schedule_slot::bigint >= $1 and schedule_slot::bigint < $2`,
    [fromMs, toMs, organization],
  );
  return rows.map((row) => ({
    monitorId: row.monitor_id,
    scheduleSlot: row.schedule_slot,
    reason: row.reason,
  }));
}
