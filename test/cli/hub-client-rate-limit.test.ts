import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient, HubRequestError } from '../../hub/src/client/hub-client.js';
import { answeredStatuses, capturedLog } from '../harness/captured-log.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

// The runner Jobs, the operator and `meerkat apply` talk to the hub through this client: a burst past the hub's
// rate limit must slow them down, not fail them.
describe('the hub client under the hub’s rate limit (2 per second, burst 1)', () => {
  let hub: TestHub;
  const log = capturedLog();

  beforeAll(async () => {
    hub = await startTestHub({
      redisUrl: null,
      log: log.log,
      rateLimits: { perCaller: { perSecond: 2, burst: 1 }, authFailuresPerMinute: 0, trustedProxyHops: 0 },
    });
  });
  afterAll(() => hub.close());

  it('paces itself by the hub’s RateLimit headers: slowed down, never refused', async () => {
    const client = createHubClient(hub.url, hub.keys.acmeEditor);
    log.lines.length = 0;
    const started = Date.now();
    for (let i = 0; i < 3; i += 1) expect(await client.listMonitors({})).toEqual([]);
    // Three requests at 2 a second with a burst of 1 take at least a second.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(answeredStatuses(log)).toEqual([200, 200, 200]);
    const answer = await hub.request('GET', '/monitor/', { as: 'acmeService' });
    expect(answer.headers.get('ratelimit-policy')).toBe('1;w=0.5');
    expect(answer.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('waits out each 429 as Retry-After says and then succeeds', async () => {
    // Another client of the same key spends the budget this one's pacing knows nothing of.
    expect(await createHubClient(hub.url, hub.keys.acmeViewer).listMonitors({})).toEqual([]);
    const client = createHubClient(hub.url, hub.keys.acmeViewer);
    log.lines.length = 0;
    const started = Date.now();
    expect(await client.listMonitors({})).toEqual([]);
    expect(answeredStatuses(log)).toEqual([429, 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('still fails at once on an answer that is not 429', async () => {
    const client = createHubClient(hub.url, 'mk_not-a-key');
    await expect(client.listMonitors({})).rejects.toMatchObject({ status: 401 });
    await expect(client.listMonitors({})).rejects.toBeInstanceOf(HubRequestError);
  });
});
