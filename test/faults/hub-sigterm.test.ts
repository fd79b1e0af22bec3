import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { startCountingTarget, type CountingTarget } from './counting-target.js';
import {
  countingMonitor,
  exitWithin,
  startFaultDeployment,
  type FaultDeployment,
} from './fault-deployment.js';

const CLIENTS = 10;
const GRACE_SECONDS = 5;

/** What became of one client's requests. */
interface ClientTally {
  /** Whole responses read. */
  completed: number;
  /** Whole responses that said `Connection: close`. */
  toldToClose: number;
  /** Requests refused before anything was sent (the hub no longer listens). */
  refused: number;
  /** Connections closed with no response begun. */
  closedBeforeResponse: number;
  /** Responses cut in the middle: the failure this test is about. */
  resetMidResponse: number;
  lastError?: string;
}

type Outcome = 'completed' | 'toldToClose' | 'refused' | 'closedBeforeResponse' | 'resetMidResponse';

/** One GET over the client's keep-alive agent, classified. */
function getOnce(agent: Agent, url: URL, key: string): Promise<{ outcome: Outcome; error?: string }> {
  return new Promise((resolve) => {
    let responded = false;
    const req = request(url, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      responded = true;
      res.on('data', () => {});
      res.once('end', () =>
        resolve({ outcome: res.headers.connection === 'close' ? 'toldToClose' : 'completed' }),
      );
      res.once('aborted', () => resolve({ outcome: 'resetMidResponse', error: 'aborted' }));
      res.once('error', (error) => resolve({ outcome: 'resetMidResponse', error: error.message }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no response within 10 s')));
    req.once('error', (error: NodeJS.ErrnoException) => {
      if (responded) resolve({ outcome: 'resetMidResponse', error: error.message });
      else if (error.code === 'ECONNREFUSED') resolve({ outcome: 'refused', error: error.message });
      else resolve({ outcome: 'closedBeforeResponse', error: error.message });
    });
    req.end();
  });
}

const newTally = (): ClientTally => ({
  completed: 0,
  toldToClose: 0,
  refused: 0,
  closedBeforeResponse: 0,
  resetMidResponse: 0,
});

/** Sends requests back to back over one keep-alive connection until the hub refuses it, or `stopped()`. */
async function busyClient(url: URL, key: string, tally: ClientTally, stopped: () => boolean): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    while (!stopped() && tally.refused === 0) {
      const { outcome, error } = await getOnce(agent, url, key);
      tally[outcome] += 1;
      if (outcome === 'toldToClose') tally.completed += 1;
      if (error !== undefined) tally.lastError = error;
    }
  } finally {
    agent.destroy();
  }
}

describe('the hub on SIGTERM with 10 busy keep-alive clients', () => {
  let target: CountingTarget;
  let deployment: FaultDeployment;
  beforeAll(async () => {
    target = await startCountingTarget();
    deployment = await startFaultDeployment(['hub'], { SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) });
  }, 120_000);
  afterAll(async () => {
    await deployment?.close();
    await target?.close();
  }, 60_000);

  it('exits with 0 within its grace, and no client sees a response cut in the middle', async () => {
    for (const id of ['sigterm-a', 'sigterm-b', 'sigterm-c']) {
      expect((await deployment.api('PUT', `/monitor/${id}`, countingMonitor(target, id))).status).toBe(201);
    }
    const hub = deployment.hub();
    const url = new URL('/monitor/?limit=100', hub.url);
    let stop = false;
    const tallies = Array.from({ length: CLIENTS }, newTally);
    const clients = tallies.map((tally) => busyClient(url, deployment.key, tally, () => stop));
    await eventually(
      'every client busy',
      () => Promise.resolve(tallies.every((tally) => tally.completed >= 5)),
      30_000,
    );

    deployment.signal(hub, 'SIGTERM');
    const exit = await exitWithin(hub, (GRACE_SECONDS + 5) * 1000);
    stop = true;
    await Promise.all(clients);

    const sum = (pick: (t: ClientTally) => number) => tallies.reduce((total, t) => total + pick(t), 0);
    console.log(
      `[faults] hub SIGTERM with ${CLIENTS} busy keep-alive clients: exit ` +
        `${exit === undefined ? `none within ${GRACE_SECONDS + 5} s` : `${exit.code} after ${exit.ms} ms`}; ` +
        `responses ${sum((t) => t.completed)} (told to close ${sum((t) => t.toldToClose)}), refused ` +
        `${sum((t) => t.refused)}, closed before a response ${sum((t) => t.closedBeforeResponse)}, ` +
        `reset mid-response ${sum((t) => t.resetMidResponse)}`,
    );

    expect(exit, `the hub's exit within its grace of ${GRACE_SECONDS} s (+5 s)`).toBeDefined();
    expect(exit?.code).toBe(0);
    expect(
      Math.min(...tallies.map((t) => t.completed)),
      'responses of the least busy client',
    ).toBeGreaterThan(0);
    expect(sum((t) => t.resetMidResponse)).toBe(0);
  }, 120_000);
});
