import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signSlackRequest } from '../../hub/src/slack/request-signature.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { startFakeSlack, type FakeSlack } from './fake-slack.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

const signingSecret = 'a-slack-signing-secret';
const now = new Date('2026-03-01T12:00:00.000Z');
const nowSeconds = String(Math.floor(now.getTime() / 1000));

describe('the Slack events webhook POST /integrations/hooks/', () => {
  let hub: TestHub;
  let slack: FakeSlack;

  beforeAll(async () => {
    slack = await startFakeSlack();
    hub = await startTestHub({
      redisUrl: null,
      clock: { now: () => now },
      slack: {
        signingSecret,
        apiUrl: `${slack.url}/api`,
        authorizeUrl: `${slack.url}/oauth/v2/authorize`,
        publicUrl: 'https://meerkat.example',
      },
    });
  });
  afterAll(async () => {
    await Promise.all([hub.close(), slack.close()]);
  });

  /** A chat integration installed in `teamId`, as the OAuth flow leaves it. */
  async function installChat(id: string, teamId: string, organizationId = 'acme') {
    await hub.db
      .insertInto('integrations')
      .values({
        organization_id: organizationId,
        id,
        environment: 'default',
        name: id,
        category: 'notifications',
        provider: 'cloud',
        provider_type: 'chat',
        config: jsonColumn({ teamId }),
        credentials_encrypted: hub.cipher.encrypt(
          JSON.stringify({ botToken: `xoxb-${id}` }),
          `integrations/${organizationId}/${id}`,
        ),
        connection_id: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }

  const integration = (id: string) =>
    hub.db.selectFrom('integrations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const processedEvents = () => hub.db.selectFrom('slack_events').selectAll().execute();

  function post(body: string, headers: Record<string, string>) {
    return fetch(`${hub.url}/integrations/hooks/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  }
  function signed(body: string, extra: Record<string, string> = {}) {
    return post(body, {
      'x-slack-request-timestamp': nowSeconds,
      'x-slack-signature': signSlackRequest(signingSecret, nowSeconds, body),
      ...extra,
    });
  }
  const eventBody = (eventId: string, teamId: string, event: Record<string, unknown>) =>
    JSON.stringify({ type: 'event_callback', team_id: teamId, event_id: eventId, event_time: 1, event });

  beforeEach(async () => {
    await hub.db.deleteFrom('slack_events').execute();
    await hub.db.deleteFrom('integrations').execute();
    slack.calls.length = 0;
  });

  it('answers url_verification with its challenge', async () => {
    const response = await signed(
      JSON.stringify({ type: 'url_verification', token: 't', challenge: 'ch4ll3nge' }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: 'ch4ll3nge' });
  });

  describe('refuses with 401 and does nothing when', () => {
    const body = eventBody('Ev0REJECT', 'T0REJ', { type: 'app_uninstalled' });
    const signature = signSlackRequest(signingSecret, nowSeconds, body);
    const old = String(Number(nowSeconds) - 301);
    const cases: Array<[string, () => Promise<Response>]> = [
      [
        'the body is altered by one byte',
        () =>
          post(body.replace('T0REJ', 'T0REK'), {
            'x-slack-request-timestamp': nowSeconds,
            'x-slack-signature': signature,
          }),
      ],
      [
        'the timestamp is 301 s old (signed with it)',
        () =>
          post(body, {
            'x-slack-request-timestamp': old,
            'x-slack-signature': signSlackRequest(signingSecret, old, body),
          }),
      ],
      ['the signature header is missing', () => post(body, { 'x-slack-request-timestamp': nowSeconds })],
      ['the timestamp header is missing', () => post(body, { 'x-slack-signature': signature })],
      ['both headers are missing', () => post(body, {})],
      [
        'the signature has another prefix than v0=',
        () =>
          post(body, {
            'x-slack-request-timestamp': nowSeconds,
            'x-slack-signature': signature.replace(/^v0=/, 'v1='),
          }),
      ],
      [
        'the signature was made with another secret',
        () =>
          post(body, {
            'x-slack-request-timestamp': nowSeconds,
            'x-slack-signature': signSlackRequest('another-secret', nowSeconds, body),
          }),
      ],
    ];
    for (const [name, send] of cases) {
      it(name, async () => {
        await installChat('int_rej', 'T0REJ');
        const response = await send();
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
        expect(await integration('int_rej')).toMatchObject({
          enabled: true,
          credentials_encrypted: expect.any(String) as unknown,
        });
        expect(await processedEvents()).toEqual([]);
      });
    }
  });

  it('app_uninstalled disables the workspace’s chat integrations and erases their tokens, in every organization', async () => {
    await installChat('int_gone', 'T0GONE');
    await installChat('int_gone_globex', 'T0GONE', 'globex');
    await installChat('int_other', 'T0OTHER');
    const response = await signed(eventBody('Ev0UNINSTALL', 'T0GONE', { type: 'app_uninstalled' }));
    expect(response.status).toBe(200);
    for (const id of ['int_gone', 'int_gone_globex'])
      expect(await integration(id)).toMatchObject({ enabled: false, credentials_encrypted: null });
    expect(await integration('int_other')).toMatchObject({
      enabled: true,
      credentials_encrypted: expect.any(String) as unknown,
    });
  });

  it('tokens_revoked then app_uninstalled (Slack’s order varies) leave the integration disabled and tokenless', async () => {
    await installChat('int_revoked', 'T0REV');
    const revoked = eventBody('Ev0REVOKE', 'T0REV', { type: 'tokens_revoked', tokens: { bot: ['U0BOT'] } });
    expect((await signed(revoked)).status).toBe(200);
    expect(await integration('int_revoked')).toMatchObject({ enabled: false, credentials_encrypted: null });
    expect((await signed(eventBody('Ev0UNINST2', 'T0REV', { type: 'app_uninstalled' }))).status).toBe(200);
    expect(await integration('int_revoked')).toMatchObject({ enabled: false, credentials_encrypted: null });
  });

  it('app_home_opened publishes the organization’s monitor health to the user’s App Home', async () => {
    await installChat('int_home', 'T0HOME');
    const response = await signed(
      eventBody('Ev0HOME', 'T0HOME', { type: 'app_home_opened', user: 'U0USER', tab: 'home' }),
    );
    expect(response.status).toBe(200);
    const publish = await eventually(() => Promise.resolve(slack.callsOf('views.publish')[0]));
    expect(publish.headers.authorization).toBe('Bearer xoxb-int_home');
    expect(publish.params.get('user_id')).toBe('U0USER');
    const view = JSON.parse(publish.params.get('view') ?? '{}') as { type: string; blocks: unknown[] };
    expect(view.type).toBe('home');
    expect(JSON.stringify(view.blocks)).toContain('*Monitors*');
  });

  it('a retried delivery (X-Slack-Retry-Num, same event_id) is processed once', async () => {
    await installChat('int_retry', 'T0RETRY');
    const body = eventBody('Ev0RETRY', 'T0RETRY', { type: 'app_home_opened', user: 'U0USER', tab: 'home' });
    expect((await signed(body)).status).toBe(200);
    const retry = await signed(body, { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
    expect(retry.status).toBe(200);
    // The retry was answered after its dedup check committed: no further publish can be under way.
    await eventually(() => Promise.resolve(slack.callsOf('views.publish')[0]));
    expect(slack.callsOf('views.publish').filter((c) => c.params.get('user_id') === 'U0USER')).toHaveLength(
      1,
    );
    expect((await processedEvents()).map((e) => e.event_id).sort()).toEqual(['Ev0RETRY']);
  });
});
