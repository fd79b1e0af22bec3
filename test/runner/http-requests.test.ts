import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitorRunner, type StepTimings } from '../../hub/src/runner/monitor-runner.js';
import { joinBaseAndPath } from '../../hub/src/runner/request-target.js';
import { assertionNode, httpNode, monitorOf, runContext, statusIs } from './monitor-builders.js';
import { JSON_DOCUMENT, startTargetServer, type TargetServer } from './target-server.js';
import { loopbackEgress } from '../harness/egress.js';

/** The timing phases reported, each checked to be a number of milliseconds. */
function phasesOf(timings: StepTimings | undefined): string[] {
  const entries = Object.entries(timings ?? {});
  expect(entries.every(([, ms]) => typeof ms === 'number' && ms >= 0)).toBe(true);
  return entries.map(([phase]) => phase).sort();
}

describe('HTTP_REQUEST steps against the local target', () => {
  let target: TargetServer;
  const runner = createMonitorRunner({ maxBodyBytes: 64 * 1024, egress: loopbackEgress });
  const runOne = (node: ReturnType<typeof httpNode>) => runner.run(monitorOf([node]), runContext());

  beforeAll(async () => {
    target = await startTargetServer();
  });
  afterAll(async () => {
    await runner.close();
    await target.close();
  });

  it.each([
    ['https://api.example.com', '/cart', 'https://api.example.com/cart'],
    ['https://api.example.com/', '/cart', 'https://api.example.com/cart'],
    ['https://api.example.com//', 'cart', 'https://api.example.com/cart'],
    ['https://api.example.com/v1', 'cart?page=2&q=a%20b', 'https://api.example.com/v1/cart?page=2&q=a%20b'],
    ['https://api.example.com/v1/', '//cart/', 'https://api.example.com/v1/cart/'],
    ['https://api.example.com', '', 'https://api.example.com/'],
  ])('joins base %s and path %s with exactly one slash', (base, path, url) => {
    expect(joinBaseAndPath(base, path)).toBe(url);
  });

  it('sends method, headers and a JSON body to base + path, keeping a base path prefix and a query', async () => {
    const outcome = await runOne(
      httpNode('create', `${target.url}/prefix/`, '/echo?debug=1', {
        method: 'POST',
        headers: { 'X-Trace': 'abc' },
        body: { item: 'anvil', quantity: 2 },
      }),
    );
    expect(outcome.success).toBe(true);
    expect(outcome.steps[0]?.request).toEqual({ method: 'POST', url: `${target.url}/prefix/echo?debug=1` });
    const received = target.received.at(-1);
    expect(received).toMatchObject({
      method: 'POST',
      url: '/prefix/echo?debug=1',
      body: '{"item":"anvil","quantity":2}',
    });
    expect(received?.headers).toMatchObject({ 'x-trace': 'abc', 'content-type': 'application/json' });
    expect(received?.headers['user-agent']).toMatch(/^meerkat\//);
  });

  it('parses JSON, keeps XML as text, and accepts an empty body for NO_CONTENT', async () => {
    const monitor = monitorOf(
      [
        httpNode('json', target.url, '/json'),
        httpNode('xml', target.url, '/xml', { response_format: 'XML' }),
        httpNode('empty', target.url, '/empty', { method: 'DELETE', response_format: 'NO_CONTENT' }),
        assertionNode('verify', [
          {
            nodeId: 'json',
            subject: 'body',
            path: '$.items[1].name',
            predicate: { type: 'binary', operator: 'EQUAL', expected: 'rocket' },
          },
          {
            nodeId: 'xml',
            subject: 'text',
            predicate: { type: 'binary', operator: 'CONTAINS', expected: '<status>up</status>' },
          },
          statusIs('empty', 204),
        ]),
      ],
      [
        ['json', 'verify'],
        ['xml', 'verify'],
        ['empty', 'verify'],
      ],
    );
    const outcome = await runner.run(monitor, runContext());
    expect(outcome.errors).toEqual([]);
    expect(outcome.steps.map((step) => step.response)).toEqual([
      { status: 200, bytes: JSON.stringify(JSON_DOCUMENT).length, excerpt: JSON.stringify(JSON_DOCUMENT) },
      {
        status: 200,
        bytes: '<health><status>up</status></health>'.length,
        excerpt: '<health><status>up</status></health>',
      },
      { status: 204, bytes: 0 },
      undefined,
    ]);
  });

  it('fails a NO_CONTENT request that gets a body, and an unparsable JSON body, as http errors that skip dependants', async () => {
    const monitor = monitorOf(
      [
        httpNode('gateway', target.url, '/json', { response_format: 'NO_CONTENT' }),
        httpNode('orders', target.url, '/malformed'),
        assertionNode('gateway-ok', [statusIs('gateway', 200)]),
        assertionNode('orders-ok', [statusIs('orders', 200)]),
      ],
      [
        ['gateway', 'gateway-ok'],
        ['orders', 'orders-ok'],
      ],
    );
    const outcome = await runner.run(monitor, runContext());
    expect(outcome.steps.map((step) => step.status)).toEqual(['failed', 'failed', 'skipped', 'skipped']);
    expect(outcome.errorClasses).toEqual(['http', 'http']);
    expect(outcome.errors[0]).toMatch(
      /^gateway: GET http:\/\/127\.0\.0\.1:\d+\/json: expected no content \(response_format NO_CONTENT\), got \d+ bytes with status 200$/,
    );
    expect(outcome.errors[1]).toMatch(
      /^orders: GET http:\/\/127\.0\.0\.1:\d+\/malformed: the response \(status 200\) is not valid JSON: /,
    );
    expect(outcome.steps[2]?.error).toBe('not run: gateway failed');
  });

  it('stops reading a body over the limit, whether or not content-length announced it', async () => {
    const chunked = await runOne(
      httpNode('download', target.url, '/big?bytes=1048576', { response_format: 'XML' }),
    );
    expect(chunked.errors[0]).toMatch(
      /the response body is over the 65536-byte limit \(\d+ bytes so far\); not read further$/,
    );
    expect(chunked.errorClasses).toEqual(['http']);
    expect(chunked.steps[0]?.response?.bytes).toBeLessThan(1024 * 1024);

    const declared = await runOne(
      httpNode('download', target.url, '/big-declared?bytes=1048576', { response_format: 'XML' }),
    );
    expect(declared.errors[0]).toMatch(
      /over the 65536-byte limit \(content-length 1048576\); not read further$/,
    );
    expect(declared.steps[0]?.response).toEqual({ status: 200, bytes: 0 });
  });

  it('reads a body right at the limit', async () => {
    const outcome = await runOne(
      httpNode('download', target.url, '/big?bytes=65536', { response_format: 'XML' }),
    );
    expect(outcome.success).toBe(true);
    // The run keeps the body's first 1 KiB, the cut marked.
    expect(outcome.steps[0]?.response).toEqual({
      status: 200,
      bytes: 65536,
      excerpt: `${'x'.repeat(1024)}…`,
    });
  });

  it('does not follow a redirect unless the node asks to', async () => {
    const monitor = (follow: boolean) =>
      monitorOf(
        [
          httpNode('moved', target.url, '/redirect', {
            follow_redirects: follow,
            response_format: follow ? 'JSON' : 'NO_CONTENT',
          }),
          assertionNode('verify', [statusIs('moved', follow ? 200 : 302)]),
        ],
        [['moved', 'verify']],
      );
    const kept = await runner.run(monitor(false), runContext());
    expect(kept.errors).toEqual([]);
    const followed = await runner.run(monitor(true), runContext());
    expect(followed.errors).toEqual([]);
    expect(followed.steps[0]?.response?.status).toBe(200);
  });

  it('reports the total, connect and first-byte times of a request on a new connection', async () => {
    const fresh = createMonitorRunner({ egress: loopbackEgress });
    try {
      const outcome = await fresh.run(
        monitorOf([httpNode('json', target.url.replace('127.0.0.1', 'localhost'), '/json')]),
        runContext(),
      );
      const timings = outcome.steps[0]?.timings;
      expect(phasesOf(timings)).toEqual(['connectMs', 'dnsMs', 'firstByteMs', 'totalMs']);
      expect(timings?.firstByteMs).toBeLessThanOrEqual(timings?.totalMs ?? 0);
      // The pooled connection is reused by the next run: no connect phase to report. undici frees the
      // connection for reuse on the next tick, which a worker's runs are always apart by.
      await new Promise((resolve) => setImmediate(resolve));
      const again = await fresh.run(
        monitorOf([httpNode('json', target.url.replace('127.0.0.1', 'localhost'), '/json')]),
        runContext(),
      );
      expect(phasesOf(again.steps[0]?.timings)).toEqual(['firstByteMs', 'totalMs']);
    } finally {
      await fresh.close();
    }
  });
});
