// The operator's PUTs gathered into `POST /monitor/bulk` (ADR 0054): every reconcile still awaits its own PUT's
// outcome, but the PUTs asked for while one request is in flight go together in the next, up to 100 (the hub's
// bound) and half the hub's body limit. So a fleet sync costs the hub's rate limit a request per batch, not one per
// Monitor, while a lone edit goes at once, as the PUT of `/monitor/{id}` it always was.
import { HubAnswerError, HubRequestError } from '../../hub/src/client/hub-client.js';
import type { Monitor, MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';

export interface BulkPuts {
  putMonitor(id: string, definition: MonitorDefinition): Promise<Monitor>;
  /** Each item's outcome in order: what was stored, or the error its own PUT would have thrown. */
  putMonitors(items: Array<{ id: string; definition: MonitorDefinition }>): Promise<Array<Monitor | Error>>;
}

interface Pending {
  id: string;
  definition: MonitorDefinition;
  bytes: number;
  settle: { resolve: (stored: Monitor) => void; reject: (error: unknown) => void };
}

const MAX_ITEMS = 100;
/** Half of the hub's 1 MiB body limit: room for the envelope and for a definition larger than estimated. */
const MAX_BYTES = 512 * 1024;

function settleEach(batch: Pending[], outcomes: Array<Monitor | Error>): void {
  if (outcomes.length !== batch.length)
    throw new HubAnswerError('POST', '/monitor/bulk', [
      { path: 'data', message: `${outcomes.length} results for ${batch.length} monitors` },
    ]);
  for (const [index, outcome] of outcomes.entries()) {
    const item = batch[index]!;
    if (outcome instanceof Error) item.settle.reject(outcome);
    else item.settle.resolve(outcome);
  }
}

/** An older hub has no `POST /monitor/bulk`: its router answers 404 (405 behind a proxy that knows the path). */
function isMissingRoute(error: unknown): boolean {
  return error instanceof HubRequestError && (error.status === 404 || error.status === 405);
}

/**
 * A putMonitor that batches; at most one request in flight, so what waits meanwhile forms the next batch. Against
 * a hub without the bulk route, each batch goes as the PUTs it stands for, and the route is not asked for again.
 */
export function createPutBatcher(
  hub: BulkPuts,
  onNoBulkRoute: () => void = () => {},
): (id: string, definition: MonitorDefinition) => Promise<Monitor> {
  const waiting: Pending[] = [];
  let sending = false;
  let bulk = true;

  /** Each PUT on its own, at once: a batch is only as large as the reconciles waiting on it (the workers). */
  async function sendOneByOne(batch: Pending[]): Promise<void> {
    await Promise.all(
      batch.map((item) =>
        hub.putMonitor(item.id, item.definition).then(item.settle.resolve, item.settle.reject),
      ),
    );
  }

  function nextBatch(): Pending[] {
    const batch: Pending[] = [];
    let bytes = 0;
    while (waiting.length > 0 && batch.length < MAX_ITEMS) {
      const next = waiting[0]!;
      // The same id twice in one request is refused: a later PUT of it waits for the next batch.
      if (batch.length > 0 && (bytes + next.bytes > MAX_BYTES || batch.some((item) => item.id === next.id)))
        break;
      batch.push(waiting.shift()!);
      bytes += next.bytes;
    }
    return batch;
  }

  async function send(batch: Pending[]): Promise<void> {
    if (batch.length > 1 && bulk) {
      try {
        settleEach(batch, await hub.putMonitors(batch.map(({ id, definition }) => ({ id, definition }))));
        return;
      } catch (error) {
        if (!isMissingRoute(error)) {
          // The request itself failed (the hub did not answer, 5xx, 429 past its waits): each PUT failed with it.
          for (const item of batch) item.settle.reject(error);
          return;
        }
        bulk = false;
        onNoBulkRoute();
      }
    }
    await sendOneByOne(batch);
  }

  async function drain(): Promise<void> {
    try {
      for (let batch = nextBatch(); batch.length > 0; batch = nextBatch()) await send(batch);
    } finally {
      sending = false;
    }
  }

  return (id, definition) =>
    new Promise((resolve, reject) => {
      const bytes = JSON.stringify(definition).length;
      waiting.push({ id, definition, bytes, settle: { resolve, reject } });
      // The PUTs asked for in this turn of the event loop (the workers' first passes) go in one batch.
      if (!sending) {
        sending = true;
        setImmediate(() => void drain());
      }
    });
}
