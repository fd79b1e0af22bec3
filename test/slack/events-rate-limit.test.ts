import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSlackRequest } from '../../hub/src/slack/request-signature.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

const signingSecret = 'a-slack-signing-secret';

// Refused signatures cost their sender's address (2 per minute here) before the body is read; verified events
// cost their workspace (1 per second, burst 3). The hub sits behind one trusted proxy, so X-Forwarded-For names
// the sender.
describe('rate limits of the Slack events webhook', () => {
  let hub: TestHub;
  const clock = { ms: Date.parse('2026-03-01T12:00:00Z') };

  beforeAll(async () => {
    hub = await startTestHub({
      redisUrl: null,
      clock: { now: () => new Date(clock.ms) },
      slack: {
        signingSecret,
        apiUrl: 'http://127.0.0.1:9/api',
        authorizeUrl: 'http://127.0.0.1:9/oauth/v2/authorize',
      },
      rateLimits: { perCaller: { perSecond: 1, burst: 3 }, authFailuresPerMinute: 2, trustedProxyHops: 1 },
    });
  });
  afterAll(() => hub.close());

  const eventBody = (eventId: string, teamId: string) =>
    JSON.stringify({
      type: 'event_callback',
      team_id: teamId,
      event_id: eventId,
      event_time: 1,
      event: { type: 'app_mention' },
    });
  function post(from: string, body: string, secret = signingSecret) {
    const timestamp = String(Math.floor(clock.ms / 1000));
    return fetch(`${hub.url}/integrations/hooks/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': from,
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': signSlackRequest(secret, timestamp, body),
      },
      body,
    });
  }
  const recorded = async (teamId: string) =>
    (await hub.db.selectFrom('slack_events').select('event_id').where('team_id', '=', teamId).execute()).map(
      (row) => row.event_id,
    );

  it('answers 429 to an address whose signatures kept failing, even for a signed request, and not to others', async () => {
    const forged = eventBody('Ev0FORGED', 'T0VICTIM');
    expect((await post('203.0.113.66', forged, 'a-guessed-secret')).status).toBe(401);
    expect((await post('203.0.113.66', forged, 'another-guess')).status).toBe(401);
    const refused = await post('203.0.113.66', eventBody('Ev0LATE', 'T0ADDR'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(await refused.json()).toEqual({
      error: 'too many refused credentials from this address; retry in 30 s',
      code: 'rate_limited',
    });
    expect((await post('198.51.100.7', eventBody('Ev0SLACK', 'T0ADDR'))).status).toBe(200);
    expect(await recorded('T0ADDR')).toEqual(['Ev0SLACK']);
  });

  it('limits the verified events of one workspace, records none past the limit, and leaves the others alone', async () => {
    for (const id of ['Ev0A1', 'Ev0A2', 'Ev0A3'])
      expect((await post('198.51.100.7', eventBody(id, 'T0BUSY'))).status).toBe(200);
    const limited = await post('198.51.100.7', eventBody('Ev0A4', 'T0BUSY'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toEqual({
      error: 'too many events from this Slack workspace; retry in 1 s',
      code: 'rate_limited',
    });
    expect((await post('198.51.100.7', eventBody('Ev0B1', 'T0QUIET'))).status).toBe(200);
    expect((await recorded('T0BUSY')).sort()).toEqual(['Ev0A1', 'Ev0A2', 'Ev0A3']);

    // Slack retries the refused delivery later; by then the workspace has a token again.
    clock.ms += 1000;
    expect((await post('198.51.100.7', eventBody('Ev0A4', 'T0BUSY'))).status).toBe(200);
    expect((await recorded('T0BUSY')).sort()).toEqual(['Ev0A1', 'Ev0A2', 'Ev0A3', 'Ev0A4']);
  });
});
