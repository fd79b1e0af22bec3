import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInProcessScheduling, testAdmission } from '../harness/scheduling.js';
import { latestSlotMs } from '../../hub/src/scheduling/schedules.js';
import { capturedLog } from '../harness/captured-log.js';

const SCHEDULES = 300;
const EVERY_MS = 2_000;
const WINDOW_MS = 10_000;
/** How long the slots of the window may take to be sent on a busy machine once the schedules are gone. */
const DRAIN_MS = 30_000;

// Real Node timers (which sometimes fire a millisecond early) and a real request per slot to a loopback target
// that counts them: the in-process queue of `meerkat dev` must send one request per slot, never two, or shed it
// and say so.
describe('the in-process run queue on real timers', () => {
  const requests = new Map<string, number>();
  const server = createServer((req, res) => {
    const key = req.url ?? '';
    requests.set(key, (requests.get(key) ?? 0) + 1);
    res.end('ok');
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it(`sends exactly one request per slot for ${SCHEDULES} schedules every 2 s`, async () => {
    const { queue, schedules: store } = openInProcessScheduling(capturedLog().log);
    const skipped = new Map<string, string>();
    const consumer = queue.consume(
      ['default'],
      async (job) => {
        const response = await fetch(`${url}/hit/${job.data.monitorId}/${job.slot}`);
        await response.text();
      },
      {
        admission: testAdmission(50),
        // A consumer that cannot keep up (a loaded machine) sheds its oldest waiting slots and says so: a counted
        // gap of the slot ledger, not a lost slot (docs/adr/0040-overload-is-shed.md).
        onSkipped: (slots, reason) => {
          for (const slot of slots) skipped.set(`/hit/${slot.data.monitorId}/${slot.slotMs}`, reason);
        },
      },
    );
    const schedules = Array.from({ length: SCHEDULES }, (_, i) => ({
      id: `s${i}`,
      location: 'default',
      everyMs: EVERY_MS,
      offsetMs: (i * 7) % EVERY_MS,
      data: { organizationId: 'acme', monitorId: `s${i}`, location: 'default' },
    }));
    for (const schedule of schedules) await store.upsertSchedule(schedule);
    const armedAt = Date.now();
    await sleep(WINDOW_MS);
    const stoppedAt = Date.now();
    for (const schedule of schedules) await store.removeSchedule('default', schedule.id);
    // Every slot strictly inside the window was due while its schedule existed: each must have one request.
    const expected = schedules.flatMap((schedule) => {
      const slots: string[] = [];
      let slot = latestSlotMs(schedule, armedAt) + EVERY_MS;
      for (; slot < stoppedAt - EVERY_MS; slot += EVERY_MS) slots.push(`/hit/${schedule.id}/${slot}`);
      return slots;
    });
    const drainEnds = Date.now() + DRAIN_MS;
    const accounted = (key: string) => requests.has(key) || skipped.has(key);
    while (expected.some((key) => !accounted(key)) && Date.now() < drainEnds) await sleep(200);
    await consumer.close();
    await store.close();
    await queue.close();
    const twice = [...requests].filter(([, count]) => count > 1);
    const missing = expected.filter((key) => !accounted(key));
    const both = [...skipped.keys()].filter((key) => requests.has(key));
    console.log(
      `[slots] ${requests.size} slots requested, ${expected.length} expected, ${twice.length} requested twice, ` +
        `${skipped.size} shed`,
    );
    expect(expected.length).toBeGreaterThanOrEqual(SCHEDULES * 3);
    expect(twice.slice(0, 5), `${twice.length} slots requested more than once`).toEqual([]);
    expect(missing.slice(0, 5), `${missing.length} slots neither requested nor shed`).toEqual([]);
    expect(both.slice(0, 5), `${both.length} slots both requested and shed`).toEqual([]);
  }, 60_000);
});
