// Run-time enforcement, against loopback only: a policy that refuses loopback except 127.0.0.2 (an allow rule)
// stands in for one that refuses the metadata service; what it refuses must never receive a request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../hub/src/egress/egress-policy.js';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { httpNode, monitorOf, runContext } from './monitor-builders.js';
import { redirectPath, startRedirectingServer, type RedirectingServer } from './redirecting-server.js';

const LOOPBACK_RULE = 'default deny loopback 127.0.0.0/8';

describe('the egress policy at connect time', () => {
  let allowed: RedirectingServer;
  let denied: RedirectingServer;
  let local: RedirectingServer;
  const runner = createMonitorRunner({
    egress: createEgressPolicy({ lists: { allowCidrs: ['127.0.0.2/32'] } }),
  });
  const runOne = (base: string, path: string) =>
    runner.run(
      monitorOf([httpNode('probe', base, path, { follow_redirects: true, response_format: 'XML' })]),
      runContext(),
    );

  beforeAll(async () => {
    [allowed, denied, local] = await Promise.all([
      startRedirectingServer('127.0.0.2'),
      startRedirectingServer('127.0.0.3'),
      startRedirectingServer('127.0.0.1'),
    ]);
  });
  afterAll(async () => {
    await runner.close();
    await Promise.all([allowed.close(), denied.close(), local.close()]);
  });

  it('lets an allowed address through', async () => {
    const outcome = await runOne(allowed.url, '/ok');
    expect(outcome.errors).toEqual([]);
  });

  it('refuses a host name by the address it resolves to, before connecting', async () => {
    const base = local.url.replace('127.0.0.1', 'localhost');
    const outcome = await runOne(base, '/ok');
    expect(outcome.steps[0]).toMatchObject({ status: 'failed', errorClass: 'runner' });
    expect(outcome.errors).toEqual([
      `probe: GET ${base}/ok: egress policy denies 127.0.0.1 (rule: ${LOOPBACK_RULE})`,
    ]);
    expect(local.received).toEqual([]);
  });

  it('refuses an address literal', async () => {
    const outcome = await runOne(denied.url, '/ok');
    expect(outcome.errors).toEqual([
      `probe: GET ${denied.url}/ok: egress policy denies 127.0.0.3 (rule: ${LOOPBACK_RULE})`,
    ]);
    expect(denied.received).toEqual([]);
  });

  it('refuses a redirect from an allowed address to a denied one, naming the hop', async () => {
    const start = redirectPath(302, `${denied.url}/landing`);
    const outcome = await runOne(allowed.url, start);
    expect(outcome.steps[0]).toMatchObject({
      status: 'failed',
      errorClass: 'runner',
      redirects: [{ status: 302, url: `${denied.url}/landing` }],
    });
    expect(outcome.errors).toEqual([
      `probe: GET ${allowed.url}${start}: after 1 redirect(s), GET ${denied.url}/landing: ` +
        `egress policy denies 127.0.0.3 (rule: ${LOOPBACK_RULE})`,
    ]);
    expect(allowed.received.some((request) => request.path === '/redirect')).toBe(true);
    expect(denied.received).toEqual([]);
  });

  it('refuses a redirect to a host name that resolves to a denied address', async () => {
    const target = `${local.url.replace('127.0.0.1', 'localhost')}/landing`;
    const outcome = await runOne(allowed.url, redirectPath(307, target));
    expect(outcome.errors[0]).toMatch(
      new RegExp(`after 1 redirect\\(s\\), GET ${target}: egress policy denies 127\\.0\\.0\\.1 \\(rule:`),
    );
    expect(local.received).toEqual([]);
  });
});
