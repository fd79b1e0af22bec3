import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { validMonitor, type Definition } from './fixtures.js';

function withRequest(change: Record<string, unknown>): Definition {
  const monitor = validMonitor({ notifications: undefined });
  monitor.nodes[0] = { ...monitor.nodes[0], ...change };
  return monitor;
}

const withHeaders = (headers: Record<string, unknown>) => withRequest({ headers });

// [what is wrong, the body, the field the answer must name, words the message must contain]
const refused: Array<[string, Definition, string, string]> = [
  [
    'a header value with CR/LF',
    withHeaders({ 'X-Trace': 'a\r\nX-Injected: 1' }),
    'nodes[0].headers.X-Trace',
    'CR or LF',
  ],
  [
    'a header value with a lone LF',
    withHeaders({ 'X-Trace': 'a\nb' }),
    'nodes[0].headers.X-Trace',
    'CR or LF',
  ],
  [
    'a header value with a control character',
    withHeaders({ 'X-Trace': 'a\u0007b' }),
    'nodes[0].headers.X-Trace',
    'control character',
  ],
  [
    'a header value outside Latin-1',
    withHeaders({ 'X-Trace': 'caf\u00e9 \u2603' }),
    'nodes[0].headers.X-Trace',
    'Latin-1',
  ],
  ['a header name with a space', withHeaders({ 'X Bad': 'v' }), 'nodes[0].headers.X Bad', 'RFC 9110 token'],
  ['a header name with a colon', withHeaders({ 'X-Bad:': 'v' }), 'nodes[0].headers.X-Bad:', 'token'],
  ['an empty header name', withHeaders({ '': 'v' }), 'nodes[0].headers.', 'token'],
  [
    'Transfer-Encoding',
    withHeaders({ 'Transfer-Encoding': 'chunked' }),
    'nodes[0].headers.Transfer-Encoding',
    'set by the HTTP client',
  ],
  [
    'Content-Length',
    withHeaders({ 'content-length': '5' }),
    'nodes[0].headers.content-length',
    'HTTP client',
  ],
  ['Connection', withHeaders({ Connection: 'close' }), 'nodes[0].headers.Connection', 'HTTP client'],
  ['Upgrade', withHeaders({ Upgrade: 'websocket' }), 'nodes[0].headers.Upgrade', 'HTTP client'],
  ['Keep-Alive', withHeaders({ 'Keep-Alive': 'timeout=5' }), 'nodes[0].headers.Keep-Alive', 'HTTP client'],
  ['TE', withHeaders({ TE: 'trailers' }), 'nodes[0].headers.TE', 'HTTP client'],
  ['Trailer', withHeaders({ Trailer: 'Expires' }), 'nodes[0].headers.Trailer', 'HTTP client'],
  ['Expect', withHeaders({ Expect: '100-continue' }), 'nodes[0].headers.Expect', 'HTTP client'],
  ['Host', withHeaders({ HOST: 'internal.example' }), 'nodes[0].headers.HOST', 'HTTP client'],
  [
    'a client-owned header set through a secret',
    withHeaders({ 'Transfer-Encoding': { $secret: { ref: 'te' } } }),
    'nodes[0].headers.Transfer-Encoding',
    'HTTP client',
  ],
  ['the method CONNECT', withRequest({ method: 'CONNECT' }), 'nodes[0].method', 'OPTIONS'],
  ['the method TRACE', withRequest({ method: 'TRACE' }), 'nodes[0].method', 'OPTIONS'],
];

describe('HTTP_REQUEST nodes: headers and methods are checked when the monitor is saved', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.close());

  it.each(refused)('when a node has %s, PUT answers 400 naming the field', async (_, body, path, words) => {
    const res = await hub.request('PUT', '/monitor/web-1', { body });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { code: string; details: Array<{ path: string; message: string }> };
    expect(answer.code).toBe('validation_failed');
    const issue = answer.details.find((detail) => detail.path === path);
    expect(issue, JSON.stringify(answer.details)).toBeDefined();
    expect(issue?.message).toContain(words);
  });

  it('stores nothing for any of them', async () => {
    expect(await hub.db.selectFrom('monitors').select('id').execute()).toEqual([]);
  });

  it('takes tokens with punctuation, tabs, Latin-1 text and secret references', async () => {
    const body = withHeaders({
      "X-Odd_Name.v1!#$%&'*+^`|~": 'a\tb',
      'Accept-Language': 'fr-CH, fr;q=0.9, caf\u00e9',
      Authorization: { $secret: { ref: 'api_token' } },
    });
    const res = await hub.request('PUT', '/monitor/web-headers', { body });
    expect(res.status).toBe(201);
  });

  it('takes every method but CONNECT and TRACE', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']) {
      const res = await hub.request('PUT', `/monitor/m-${method.toLowerCase()}`, {
        body: { ...withRequest({ method }), name: `method ${method}` },
      });
      expect(res.status, method).toBe(201);
    }
  });
});
