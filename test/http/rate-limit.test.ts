import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../hub/src/auth/api-keys.js';
import { capturedLog, type CapturedLog } from '../harness/captured-log.js';
import { startTestHub, type Caller, type TestHub } from '../harness/hub.js';

/** A hub clock the test moves by hand, so buckets refill exactly when the test says. */
function movableClock() {
  const clock = { ms: Date.parse('2026-03-01T12:00:00Z') };
  return { clock, advance: (ms: number) => (clock.ms += ms), now: () => new Date(clock.ms) };
}

/** GET /monitor/ as `caller`, or with no key and the given headers. */
function listMonitors(hub: TestHub, as: Caller | null, headers: Record<string, string> = {}) {
  return hub.request('GET', '/monitor/', { as, headers });
}

const limited = (retryAfter: string) => ({ status: 429, retryAfter });
const outcome = async (res: Response) => {
  const body = await res.text();
  return res.status === 429
    ? { status: 429, retryAfter: res.headers.get('retry-after'), body: JSON.parse(body) as unknown }
    : { status: res.status };
};

describe('each caller’s rate limit (2 requests per second, burst 5)', () => {
  let hub: TestHub;
  let logs: CapturedLog;
  const time = movableClock();

  beforeAll(async () => {
    logs = capturedLog();
    hub = await startTestHub({
      redisUrl: null,
      clock: { now: time.now },
      log: logs.log,
      rateLimits: { perCaller: { perSecond: 2, burst: 5 }, authFailuresPerMinute: 0, trustedProxyHops: 0 },
    });
  });
  afterAll(() => hub.close());

  it('answers the request past the burst with 429, Retry-After and the error body; another key is unaffected', async () => {
    for (let i = 0; i < 5; i += 1) expect((await listMonitors(hub, 'acmeViewer')).status).toBe(200);
    expect(await outcome(await listMonitors(hub, 'acmeViewer'))).toEqual({
      ...limited('1'),
      body: {
        error: 'rate limit of 2 requests per second (burst 5) exceeded; retry in 1 s',
        code: 'rate_limited',
      },
    });
    expect((await listMonitors(hub, 'acmeEditor')).status).toBe(200);
    expect((await listMonitors(hub, 'globexAdmin')).status).toBe(200);
  });

  it('refills at the configured rate, up to the burst and no further', async () => {
    expect((await listMonitors(hub, 'acmeViewer')).status).toBe(429);
    time.advance(500);
    expect((await listMonitors(hub, 'acmeViewer')).status).toBe(200);
    expect((await listMonitors(hub, 'acmeViewer')).status).toBe(429);
    time.advance(60_000);
    const statuses = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await listMonitors(hub, 'acmeViewer')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('never writes the key or its hash into a log line', () => {
    for (const caller of ['acmeViewer', 'acmeEditor', 'globexAdmin'] as const) {
      expect(logs.text()).not.toContain(hub.keys[caller]);
      expect(logs.text()).not.toContain(hashApiKey(hub.keys[caller]));
    }
    expect(logs.text()).toContain('"statusCode":429');
  });
});

describe('refused credentials per client address (3 per minute, behind one trusted proxy)', () => {
  let hub: TestHub;
  const time = movableClock();
  const from = (address: string, authorization?: string) => ({
    'x-forwarded-for': address,
    ...(authorization === undefined ? {} : { authorization }),
  });
  const badKey = (address: string) => listMonitors(hub, null, from(address, 'Bearer mk_guessed'));

  beforeAll(async () => {
    hub = await startTestHub({
      redisUrl: null,
      clock: { now: time.now },
      rateLimits: {
        perCaller: { perSecond: 100, burst: 100 },
        authFailuresPerMinute: 3,
        trustedProxyHops: 1,
      },
    });
  });
  afterAll(() => hub.close());

  it('after 3 refused keys an address gets 429 before any key is checked, even a valid one', async () => {
    for (let i = 0; i < 3; i += 1) expect((await badKey('203.0.113.7')).status).toBe(401);
    expect(await outcome(await badKey('203.0.113.7'))).toEqual({
      ...limited('20'),
      body: { error: 'too many refused credentials from this address; retry in 20 s', code: 'rate_limited' },
    });
    const valid = `Bearer ${hub.keys.acmeEditor}`;
    expect((await listMonitors(hub, null, from('203.0.113.7', valid))).status).toBe(429);
    expect((await listMonitors(hub, null, from('203.0.113.7'))).status).toBe(429);
  });

  it('keeps other addresses apart, and ignores the entries a client writes into X-Forwarded-For', async () => {
    expect((await badKey('203.0.113.8')).status).toBe(401);
    expect((await badKey('198.51.100.1, 203.0.113.7')).status).toBe(429);
  });

  it('gives the address one attempt back every 20 s', async () => {
    time.advance(20_000);
    expect((await badKey('203.0.113.7')).status).toBe(401);
    expect((await badKey('203.0.113.7')).status).toBe(429);
  });

  it('still lets in a key that verified before while its address is out of budget', async () => {
    const admin = `Bearer ${hub.keys.acmeAdmin}`;
    expect((await listMonitors(hub, null, from('203.0.113.9', admin))).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await badKey('203.0.113.9')).status).toBe(401);
    expect((await badKey('203.0.113.9')).status).toBe(429);
    expect((await listMonitors(hub, null, from('203.0.113.9', admin))).status).toBe(200);
    const neverSeen = `Bearer ${hub.keys.globexAdmin}`;
    expect((await listMonitors(hub, null, from('203.0.113.9', neverSeen))).status).toBe(429);
  });

  it('leaves the unauthenticated endpoints alone', async () => {
    expect((await hub.request('GET', '/healthz', { as: null, headers: from('203.0.113.7') })).status).toBe(
      200,
    );
  });
});
