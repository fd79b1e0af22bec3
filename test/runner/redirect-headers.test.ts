import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { MAX_REDIRECTS } from '../../hub/src/runner/run-outcome.js';
import { loopbackEgress } from '../harness/egress.js';
import { httpNode, monitorOf, runContext, secretsOf } from './monitor-builders.js';
import { redirectPath, startRedirectingServer, type RedirectingServer } from './redirecting-server.js';

const API_KEY = 'k-7f3a9c-canary';

describe('redirects followed by the runner', () => {
  let first: RedirectingServer;
  let second: RedirectingServer;
  const runner = createMonitorRunner({ egress: loopbackEgress });
  const secrets = secretsOf({ api_key: API_KEY });

  beforeAll(async () => {
    [first, second] = await Promise.all([startRedirectingServer(), startRedirectingServer()]);
  });
  afterAll(async () => {
    await runner.close();
    await Promise.all([first.close(), second.close()]);
  });

  const headers = {
    'x-api-key': { $secret: { ref: 'api_key' } },
    authorization: 'Basic bGl0ZXJhbDpwYXNz',
    'x-trace': 'trace-1',
    'x-tenant': 'tenant-1',
    accept: 'application/json',
  };
  const follow = (id: string, path: string, more: Record<string, unknown> = {}) =>
    runner.run(
      monitorOf([httpNode(id, first.url, path, { follow_redirects: true, headers, ...more })]),
      runContext(secrets),
    );
  const lastAt = (server: RedirectingServer, path: string) =>
    server.received.filter((request) => request.path === path).at(-1);

  it('to another origin, drops $secret headers, credentials and unlisted custom headers; keeps the listed ones', async () => {
    const outcome = await follow('cross', redirectPath(302, `${second.url}/cross-landing`), {
      redirect_safe_headers: ['X-Tenant', 'x-api-key'],
    });
    expect(outcome.errors).toEqual([]);
    expect(lastAt(first, '/redirect')?.headers['x-api-key']).toBe(API_KEY);
    const landed = lastAt(second, '/cross-landing');
    expect(landed?.headers).toMatchObject({ 'x-tenant': 'tenant-1', accept: 'application/json' });
    expect(landed?.headers['user-agent']).toMatch(/^meerkat\//);
    // Listed or not, a header whose value is a secret never reaches another origin.
    expect(landed?.headers).not.toHaveProperty('x-api-key');
    expect(landed?.headers).not.toHaveProperty('authorization');
    expect(landed?.headers).not.toHaveProperty('x-trace');
    expect(JSON.stringify(second.received)).not.toContain(API_KEY);
    expect(outcome.steps[0]?.redirects).toEqual([{ status: 302, url: `${second.url}/cross-landing` }]);
  });

  it('within the same origin, keeps every header', async () => {
    const outcome = await follow('same', redirectPath(301, '/same-landing'));
    expect(outcome.errors).toEqual([]);
    expect(lastAt(first, '/same-landing')?.headers).toMatchObject({
      'x-api-key': API_KEY,
      authorization: 'Basic bGl0ZXJhbDpwYXNz',
      'x-trace': 'trace-1',
    });
  });

  it('keeps headers dropped at a change of origin dropped, even when the chain comes back', async () => {
    const back = `${second.url}${redirectPath(302, `${first.url}/back-home`)}`;
    const outcome = await follow('back', redirectPath(302, back));
    expect(outcome.errors).toEqual([]);
    expect(lastAt(first, '/back-home')?.headers).not.toHaveProperty('x-api-key');
    expect(outcome.steps[0]?.redirects?.map((hop) => hop.status)).toEqual([302, 302]);
  });

  it('turns a 303, and a POST answered 302, into a GET without body; repeats method and body on 307', async () => {
    const post = { method: 'POST', body: { order: 7 } };
    await follow('see-other', redirectPath(303, '/after-303'), post);
    await follow('found', redirectPath(302, '/after-302'), post);
    await follow('temporary', redirectPath(307, '/after-307'), post);
    for (const path of ['/after-303', '/after-302']) {
      const request = lastAt(first, path);
      expect({ method: request?.method, body: request?.body }).toEqual({ method: 'GET', body: '' });
      expect(request?.headers).not.toHaveProperty('content-type');
    }
    expect(lastAt(first, '/after-307')).toMatchObject({ method: 'POST', body: '{"order":7}' });
  });

  it(`fails the step past ${MAX_REDIRECTS} redirects, saying so`, async () => {
    const outcome = await follow('looping', '/loop/0', { response_format: 'NO_CONTENT' });
    const step = outcome.steps[0];
    expect(step?.errorClass).toBe('http');
    expect(step?.error).toBe(
      `GET ${first.url}/loop/0: more than ${MAX_REDIRECTS} redirects (the limit); the last answered 302 to ${first.url}/loop/11`,
    );
    expect(step?.redirects).toHaveLength(MAX_REDIRECTS);
  });

  it('does not follow at all without follow_redirects', async () => {
    const outcome = await follow('kept', redirectPath(302, `${second.url}/never`), {
      follow_redirects: false,
      response_format: 'XML',
    });
    expect(outcome.steps[0]).toMatchObject({ status: 'passed', response: { status: 302 } });
    expect(lastAt(second, '/never')).toBeUndefined();
  });
});
