import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient, HubRequestError } from '../../hub/src/client/hub-client.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

// The runner Jobs, the operator and `meerkat apply` talk to the hub through this client: a burst past the hub's
// rate limit must slow them down, not fail them.
describe('the hub client under the hub’s rate limit (2 per second, burst 1)', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({
      redisUrl: null,
      rateLimits: { perCaller: { perSecond: 2, burst: 1 }, authFailuresPerMinute: 0, trustedProxyHops: 0 },
    });
  });
  afterAll(() => hub.close());

  it('waits out each 429 as Retry-After says and then succeeds', async () => {
    const client = createHubClient(hub.url, hub.keys.acmeViewer);
    const started = Date.now();
    for (let i = 0; i < 3; i += 1) expect(await client.listMonitors({})).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('still fails at once on an answer that is not 429', async () => {
    const client = createHubClient(hub.url, 'mk_not-a-key');
    await expect(client.listMonitors({})).rejects.toMatchObject({ status: 401 });
    await expect(client.listMonitors({})).rejects.toBeInstanceOf(HubRequestError);
  });
});
