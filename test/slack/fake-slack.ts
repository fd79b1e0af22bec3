// A local server that answers like Slack: the OAuth v2 authorize page (which approves at once and sends the
// browser back), and the Web API methods the hub calls (oauth.v2.access, chat.postMessage, views.publish).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall {
  method: string;
  headers: IncomingHttpHeaders;
  params: URLSearchParams;
}

export const fakeClient = { id: 'client-123', secret: 'client-secret-456' };
export const installedBotToken = 'xoxb-installed-token';

export async function startFakeSlack(team = { id: 'T0TEAM', name: 'Acme Workspace' }) {
  const calls: SlackCall[] = [];
  const usedCodes = new Set<string>();
  let nextCode = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake-slack');
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (url.pathname === '/oauth/v2/authorize') {
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        nextCode += 1;
        back.searchParams.set('code', `code-${nextCode}`);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }
      const method = url.pathname.replace(/^\/api\//, '');
      const params = new URLSearchParams(body);
      calls.push({ method, headers: req.headers, params });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer(method, params)));
    });
  });

  function answer(method: string, params: URLSearchParams): Record<string, unknown> {
    if (method === 'oauth.v2.access') {
      const code = params.get('code') ?? '';
      if (params.get('client_id') !== fakeClient.id || params.get('client_secret') !== fakeClient.secret) {
        return { ok: false, error: 'invalid_client_id' };
      }
      if (usedCodes.has(code)) return { ok: false, error: 'code_already_used' };
      usedCodes.add(code);
      return {
        ok: true,
        access_token: installedBotToken,
        token_type: 'bot',
        scope: 'chat:write,chat:write.public,channels:read,team:read',
        bot_user_id: 'U0BOT',
        app_id: 'A0APP',
        team,
        enterprise: null,
        is_enterprise_install: false,
      };
    }
    if (method === 'chat.postMessage')
      return { ok: true, channel: params.get('channel'), ts: '1700000000.000100' };
    if (method === 'views.publish') return { ok: true, view: { id: 'V0HOME' } };
    return { ok: false, error: 'unknown_method' };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    callsOf: (method: string) => calls.filter((call) => call.method === method),
    /** Marks a code as spent, as if another browser tab had exchanged it first. */
    spendCode: (code: string) => usedCodes.add(code),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
export type FakeSlack = Awaited<ReturnType<typeof startFakeSlack>>;
