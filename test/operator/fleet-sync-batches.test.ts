// A fleet's sync as the operator runs it (ADR 0089): each reconcile puts its Monitor through the put batcher and then
// writes its status, so a bulk holds at most the PUTs of the workers waiting on it. With the default workers, a
// fleet goes to the hub in bulks of dozens, not of the handful 4 or 16 workers leave waiting.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Monitor, MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import { loadOperatorSettings } from '../../operator/src/operator-settings.js';
import { createPutBatcher, type BulkPuts } from '../../operator/src/put-batcher.js';
import { createReconcileQueue } from '../../operator/src/reconcile-queue.js';

const settings = { MEERKAT_URL: 'http://hub.test', MEERKAT_API_KEY: 'key' };
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Syncs `monitors` keys through `workers` reconciles; the sizes of the bulks the hub received, in order. */
async function bulkSizes(monitors: number, workers: number): Promise<number[]> {
  const sizes: number[] = [];
  const hub: BulkPuts = {
    putMonitor: (id) => turn().then(() => ({ id }) as unknown as Monitor),
    async putMonitors(items) {
      sizes.push(items.length);
      await turn();
      return items.map(({ id }) => ({ id }) as unknown as Monitor);
    },
  };
  const putMonitor = createPutBatcher(hub);
  let done = 0;
  const finished = new Promise<void>((resolve) => {
    const queue = createReconcileQueue({
      workers,
      log: pino({ level: 'silent' }),
      async reconcile({ name }) {
        await putMonitor(name, { name } as unknown as MonitorDefinition);
        // The status write to the API server: the worker is busy, and its next PUT not yet asked for.
        await turn();
        done += 1;
        if (done === monitors) resolve();
        return undefined;
      },
    });
    for (let index = 0; index < monitors; index += 1)
      queue.enqueue({ namespace: 'fleet', name: `m-${index}` });
  });
  await finished;
  return sizes;
}

describe('a fleet’s sync in bulks', () => {
  it('runs 64 reconciles at once unless OPERATOR_WORKERS says otherwise', () => {
    expect(loadOperatorSettings(settings).OPERATOR_WORKERS).toBe(64);
    expect(loadOperatorSettings({ ...settings, OPERATOR_WORKERS: '16' }).OPERATOR_WORKERS).toBe(16);
  });

  it('puts a bulk no larger than the workers waiting on it', async () => {
    const sizes = await bulkSizes(400, 16);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(16);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(400);
  });

  it('with the default workers, puts a fleet in a third of the bulks 16 workers need, or fewer', async () => {
    const workers = loadOperatorSettings(settings).OPERATOR_WORKERS;
    const [few, many] = [await bulkSizes(1_000, 16), await bulkSizes(1_000, workers)];
    expect(Math.max(...many)).toBe(64);
    expect(many.length * 3).toBeLessThanOrEqual(few.length);
  });
});
