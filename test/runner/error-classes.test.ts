import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import {
  refusedUrl,
  startGarbageTarget,
  startSelfSignedTarget,
  type RunningTarget,
  type SelfSignedTarget,
} from './broken-targets.js';
import { httpNode, monitorOf, runContext } from './monitor-builders.js';
import { startTargetServer, type TargetServer } from './target-server.js';
import { loopbackEgress } from '../harness/egress.js';

describe('the error class of each way a request fails', () => {
  const runner = createMonitorRunner({ egress: loopbackEgress });
  let target: TargetServer;
  let tls: SelfSignedTarget;
  let garbage: RunningTarget;

  beforeAll(async () => {
    [target, tls, garbage] = await Promise.all([
      startTargetServer(),
      startSelfSignedTarget(),
      startGarbageTarget(),
    ]);
  });
  afterAll(async () => {
    await runner.close();
    await Promise.all([target.close(), tls.close(), garbage.close()]);
  });

  const failureOf = async (base: string, path = '/', timeoutMs?: number) => {
    const node = httpNode('probe', base, path, timeoutMs === undefined ? {} : { timeout_ms: timeoutMs });
    const outcome = await runner.run(monitorOf([node]), runContext());
    return { errorClass: outcome.errorClasses[0], error: outcome.errors[0], step: outcome.steps[0] };
  };

  it('dns: a name that cannot resolve', async () => {
    const { errorClass, error } = await failureOf('http://meerkat-runner-test.invalid');
    expect(errorClass).toBe('dns');
    expect(error).toMatch(
      /^probe: GET http:\/\/meerkat-runner-test\.invalid\/: getaddrinfo (ENOTFOUND|EAI_AGAIN) meerkat-runner-test\.invalid$/,
    );
  });

  it('connection: a port nobody listens on', async () => {
    const base = await refusedUrl();
    const { errorClass, error } = await failureOf(base, '/cart');
    expect(errorClass).toBe('connection');
    expect(error).toBe(`probe: GET ${base}/cart: connect ECONNREFUSED ${base.slice('http://'.length)}`);
  });

  it('tls: a certificate no trusted authority signed', async () => {
    const { errorClass, error, step } = await failureOf(tls.url, '/');
    expect(errorClass).toBe('tls');
    expect(error).toBe(`probe: GET ${tls.url}/: self-signed certificate`);
    expect(step?.response).toBeUndefined();
  });

  it('the same server passes once the runner trusts its CA, with the TLS handshake timed', async () => {
    const trusting = createMonitorRunner({ extraCaCertificates: [tls.certificate], egress: loopbackEgress });
    try {
      const outcome = await trusting.run(monitorOf([httpNode('probe', tls.url, '/')]), runContext());
      expect(outcome.errors).toEqual([]);
      const timings = outcome.steps[0]?.timings;
      expect(typeof timings?.connectMs).toBe('number');
      expect(typeof timings?.tlsMs).toBe('number');
    } finally {
      await trusting.close();
    }
  });

  it('timeout: no answer within timeout_ms', async () => {
    const { errorClass, error } = await failureOf(target.url, '/hang', 100);
    expect(errorClass).toBe('timeout');
    expect(error).toContain('timed out after 100 ms waiting for the response');
  });

  it('http: an answer that is not HTTP', async () => {
    const { errorClass, error } = await failureOf(garbage.url, '/');
    expect(errorClass).toBe('http');
    expect(error).toMatch(new RegExp(`^probe: GET ${garbage.url}/: `));
  });

  it('runner: a URL the scheme of which the runner cannot call', async () => {
    const { errorClass, error } = await failureOf('ftp://files.example.com', '/report');
    expect(errorClass).toBe('runner');
    expect(error).toBe('probe: the URL must be http or https: ftp://files.example.com/report');
  });
});
