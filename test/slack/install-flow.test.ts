import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotifier } from '../../hub/src/server/start-notifier.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { finishRun, later, putMonitor, rulesOf } from '../notifications/notification-fixtures.js';
import { silentLog } from '../runs/run-fixtures.js';
import { fakeClient, installedBotToken, startFakeSlack, type FakeSlack } from './fake-slack.js';

// Slack sends the browser to PUBLIC_URL; the test plays the proxy in front of the hub and sends it to hub.url.
const publicUrl = 'https://meerkat.example';

describe('connecting a Slack workspace through the OAuth install flow', () => {
  let hub: TestHub;
  let slack: FakeSlack;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };

  beforeAll(async () => {
    slack = await startFakeSlack();
    hub = await startTestHub({
      redisUrl: null,
      clock,
      slack: {
        clientId: fakeClient.id,
        clientSecret: fakeClient.secret,
        signingSecret: 'unused-here',
        apiUrl: `${slack.url}/api`,
        authorizeUrl: `${slack.url}/oauth/v2/authorize`,
        publicUrl,
      },
    });
  });
  afterAll(async () => {
    await Promise.all([hub.close(), slack.close()]);
  });

  async function initiate(name: string, environment = 'default') {
    const response = await hub.request('POST', '/integrations/oauth/initiate', {
      body: { name, environment },
    });
    expect(response.status).toBe(201);
    return (
      (await response.json()) as { data: { transactionId: string; startUrl: string; expiresAt: string } }
    ).data;
  }

  /** Opens `start` in the "browser": the redirect to Slack, its cookie, and Slack's redirect back. */
  async function authorize(transactionId: string) {
    const start = await fetch(`${hub.url}/integrations/oauth/start/${transactionId}`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const consent = await fetch(start.headers.get('location') as string, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') as string);
    return { authorizeUrl: new URL(start.headers.get('location') as string), cookie, back };
  }

  async function callback(query: URLSearchParams | string, cookie?: string) {
    const response = await fetch(`${hub.url}/integrations/oauth/callback/chat?${query.toString()}`, {
      headers: cookie === undefined ? {} : { cookie },
    });
    return { status: response.status, page: await response.text() };
  }

  async function statusOf(transactionId: string) {
    const response = await hub.request('GET', `/integrations/oauth/status/${transactionId}`);
    return (await response.json()) as { status: string; integrationId?: string; errorMessage?: string };
  }

  const chatIntegrations = () =>
    hub.db.selectFrom('integrations').selectAll().where('provider_type', '=', 'chat').execute();

  it('installs the app, stores the bot token encrypted, and a chat notification goes out with it', async () => {
    const { transactionId, startUrl, expiresAt } = await initiate('team-slack', 'production');
    expect(startUrl).toBe(`${publicUrl}/integrations/oauth/start/${transactionId}`);
    expect(new Date(expiresAt).getTime() - clock.now().getTime()).toBeGreaterThan(9 * 60_000);
    expect(await statusOf(transactionId)).toEqual({ status: 'pending' });

    const { authorizeUrl, cookie, back } = await authorize(transactionId);
    expect(authorizeUrl.searchParams.get('client_id')).toBe(fakeClient.id);
    expect(authorizeUrl.searchParams.get('scope')).toContain('chat:write');
    expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(
      `${publicUrl}/integrations/oauth/callback/chat`,
    );
    const state = authorizeUrl.searchParams.get('state') as string;
    expect(state.length).toBeGreaterThanOrEqual(43);
    const stored = await hub.db
      .selectFrom('oauth_transactions')
      .selectAll()
      .where('id', '=', transactionId)
      .executeTakeFirstOrThrow();
    expect(stored.state_hash).not.toContain(state);

    const { status, page } = await callback(back.searchParams, cookie);
    expect(status).toBe(200);
    expect(page).toContain('Acme Workspace');
    expect(page).not.toContain(installedBotToken);

    const done = await eventually(async () => {
      const current = await statusOf(transactionId);
      return current.status === 'pending' ? undefined : current;
    });
    expect(done).toMatchObject({
      status: 'completed',
      integrationId: expect.stringMatching(/^int_/) as unknown,
    });

    const integration = await hub.db
      .selectFrom('integrations')
      .selectAll()
      .where('id', '=', done.integrationId as string)
      .executeTakeFirstOrThrow();
    expect(integration).toMatchObject({
      name: 'team-slack',
      environment: 'production',
      provider_type: 'chat',
      enabled: true,
    });
    expect(integration.config).toMatchObject({ teamId: 'T0TEAM' });
    expect(integration.credentials_encrypted).not.toContain(installedBotToken);
    const connection = await hub.request('GET', `/connections/${integration.connection_id}`);
    expect(((await connection.json()) as { data: unknown }).data).toMatchObject({
      authMethod: 'oauth',
      oauthConnectedAt: expect.any(String) as unknown,
      oauthScopes: ['chat:write', 'chat:write.public', 'channels:read', 'team:read'],
      metadata: { teamId: 'T0TEAM', teamName: 'Acme Workspace', botUserId: 'U0BOT' },
    });

    const notifier = await startNotifier({
      settings: { REDIS_URL: undefined, SLACK_API_URL: `${slack.url}/api/`, PUBLIC_URL: publicUrl },
      log: silentLog,
      components: { db: hub.db, cipher: hub.cipher },
    });
    try {
      expect(
        (
          await putMonitor(hub, 'installed', [
            { trigger: { type: 'run_failed' }, routing: { channelType: 'chat', channel: 'C0ALERTS' } },
          ])
        ).status,
      ).toBeLessThan(300);
      expect((await rulesOf(hub, 'installed'))[0]?.integrationId).toBe(integration.id);
      await finishRun(hub.db, [notifier.hook], { monitorId: 'installed', success: false, at: later() });
      const post = await eventually(() => Promise.resolve(slack.callsOf('chat.postMessage')[0]));
      expect(post.headers.authorization).toBe(`Bearer ${installedBotToken}`);
      expect(post.params.get('channel')).toBe('C0ALERTS');
    } finally {
      await notifier.close();
    }
  });

  it('a second install into the same workspace updates the same integration', async () => {
    const [before] = await chatIntegrations();
    const { transactionId } = await initiate('another-name', 'production');
    const { cookie, back } = await authorize(transactionId);
    expect((await callback(back.searchParams, cookie)).status).toBe(200);
    expect(await statusOf(transactionId)).toMatchObject({ status: 'completed', integrationId: before?.id });
    expect(await chatIntegrations()).toHaveLength(1);
  });

  describe('every failed callback stores no token', () => {
    const cases: Array<{
      name: string;
      tamper: (flow: { back: URL; cookie: string }) => { query: URLSearchParams; cookie?: string };
      page: RegExp;
      status: 'pending' | 'failed' | 'expired' | 'completed';
      errorMessage?: RegExp;
      /** Calls to oauth.v2.access: only a callback whose state, expiry and cookie check out reaches Slack. */
      exchanges: number;
    }> = [
      {
        name: 'a missing state is refused and the transaction stays pending',
        tamper: ({ back, cookie }) => {
          back.searchParams.delete('state');
          return { query: back.searchParams, cookie };
        },
        page: /no state/,
        status: 'pending',
        exchanges: 0,
      },
      {
        name: 'a wrong state is refused and the transaction stays pending',
        tamper: ({ back, cookie }) => {
          back.searchParams.set('state', 'x'.repeat(43));
          return { query: back.searchParams, cookie };
        },
        page: /unknown or was already used/,
        status: 'pending',
        exchanges: 0,
      },
      {
        name: 'an expired state marks the transaction expired',
        tamper: ({ back, cookie }) => {
          offsetMs += 10 * 60_000 + 1000;
          return { query: back.searchParams, cookie };
        },
        page: /longer than 10 minutes/,
        status: 'expired',
        exchanges: 0,
        errorMessage: /10 minutes/,
      },
      {
        name: 'a code Slack already exchanged (code_already_used) fails the transaction',
        tamper: ({ back, cookie }) => {
          slack.spendCode(back.searchParams.get('code') as string);
          return { query: back.searchParams, cookie };
        },
        page: /code_already_used/,
        status: 'failed',
        exchanges: 1,
        errorMessage: /Slack refused the code: code_already_used/,
      },
      {
        name: 'a callback in another browser (no start cookie) fails the transaction',
        tamper: ({ back }) => ({ query: back.searchParams }),
        page: /another browser/,
        status: 'failed',
        exchanges: 0,
        errorMessage: /another browser/,
      },
      {
        name: 'a refused consent (error=access_denied) fails the transaction',
        tamper: ({ back, cookie }) => {
          back.searchParams.delete('code');
          back.searchParams.set('error', 'access_denied');
          return { query: back.searchParams, cookie };
        },
        page: /access_denied/,
        status: 'failed',
        exchanges: 0,
        errorMessage: /Slack answered: access_denied/,
      },
    ];

    for (const testCase of cases) {
      it(testCase.name, async () => {
        offsetMs = 0;
        const { transactionId } = await initiate(`refused-${cases.indexOf(testCase)}`, 'staging');
        const { cookie, back } = await authorize(transactionId);
        const exchangesBefore = slack.callsOf('oauth.v2.access').length;
        const tampered = testCase.tamper({ back, cookie });
        const { status, page } = await callback(tampered.query, tampered.cookie);
        expect(status).toBe(400);
        expect(page).toMatch(testCase.page);
        const current = await statusOf(transactionId);
        expect(current.status).toBe(testCase.status);
        if (testCase.errorMessage) expect(current.errorMessage).toMatch(testCase.errorMessage);
        expect(current.integrationId).toBeUndefined();
        const staging = await hub.db
          .selectFrom('integrations')
          .select('id')
          .where('environment', '=', 'staging')
          .execute();
        expect(staging).toEqual([]);
        expect(slack.callsOf('oauth.v2.access').length - exchangesBefore).toBe(testCase.exchanges);
        offsetMs = 0;
      });
    }

    it('a reused state is refused and leaves the completed transaction as it was', async () => {
      const { transactionId } = await initiate('reused', 'qa');
      const { cookie, back } = await authorize(transactionId);
      expect((await callback(back.searchParams, cookie)).status).toBe(200);
      const exchanges = slack.callsOf('oauth.v2.access').length;
      const again = await callback(back.searchParams, cookie);
      expect(again.status).toBe(400);
      expect(again.page).toMatch(/already used/);
      expect(slack.callsOf('oauth.v2.access')).toHaveLength(exchanges);
      expect(await statusOf(transactionId)).toMatchObject({ status: 'completed' });
    });
  });

  it('a pending transaction reads expired after 10 minutes, and its start link stops working', async () => {
    const { transactionId } = await initiate('slow', 'staging');
    offsetMs = 10 * 60_000 + 1;
    try {
      expect(await statusOf(transactionId)).toEqual({ status: 'expired' });
      const start = await fetch(`${hub.url}/integrations/oauth/start/${transactionId}`, {
        redirect: 'manual',
      });
      expect(start.status).toBe(404);
    } finally {
      offsetMs = 0;
    }
  });

  it('only an admin may initiate, and another organization cannot read the status', async () => {
    const editor = await hub.request('POST', '/integrations/oauth/initiate', {
      as: 'acmeEditor',
      body: { name: 'x' },
    });
    expect(editor.status).toBe(403);
    const { transactionId } = await initiate('mine');
    const other = await hub.request('GET', `/integrations/oauth/status/${transactionId}`, {
      as: 'globexAdmin',
    });
    expect(other.status).toBe(404);
    const anonymous = await hub.request('POST', '/integrations/oauth/initiate', {
      as: null,
      body: { name: 'x' },
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('a hub without the Slack app settings', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null });
  });
  afterAll(() => hub.close());

  it('answers 503 naming the missing settings', async () => {
    const response = await hub.request('POST', '/integrations/oauth/initiate', { body: { name: 'slack' } });
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: string; code: string };
    expect(body.code).toBe('unavailable');
    expect(body.error).toContain('SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, PUBLIC_URL');
  });
});
