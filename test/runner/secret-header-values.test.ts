import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { httpNode, monitorOf, secretsOf } from './monitor-builders.js';
import { startTargetServer, type TargetServer } from './target-server.js';

describe('a header value that comes from a secret', () => {
  let target: TargetServer;
  // A plain agent: these cases are about header values, not about which targets the egress policy admits.
  const agent = new Agent();
  const runner = createMonitorRunner({ dispatcher: agent });
  const secrets = secretsOf({
    injected: 'tok-1\r\nX-Injected: yes',
    bell: 'tok-2\u0007',
    fine: 'tok-3\tok',
  });

  beforeAll(async () => {
    target = await startTargetServer();
  });
  afterAll(async () => {
    await runner.close();
    await agent.close();
    await target.close();
  });

  const monitorWithToken = (ref: string) =>
    monitorOf([httpNode('login', target.url, '/json', { headers: { Authorization: { $secret: { ref } } } })]);

  it('with CR/LF fails the step before anything is sent, naming the header and never quoting the value', async () => {
    const before = target.received.length;
    const outcome = await runner.run(monitorWithToken('injected'), { secrets, organizationId: 'acme' });
    expect(outcome).toMatchObject({
      success: false,
      errors: ['login: header Authorization: the resolved value contains CR or LF'],
      errorClasses: ['runner'],
    });
    expect(JSON.stringify(outcome)).not.toMatch(/tok-1|X-Injected/);
    expect(target.received.length).toBe(before);
  });

  it('with another control character fails the step the same way', async () => {
    const outcome = await runner.run(monitorWithToken('bell'), { secrets, organizationId: 'acme' });
    expect(outcome.errors).toEqual([
      'login: header Authorization: the resolved value contains a control character other than tab',
    ]);
  });

  it('with only text and tabs is sent as it is', async () => {
    const outcome = await runner.run(monitorWithToken('fine'), { secrets, organizationId: 'acme' });
    expect(outcome.errors).toEqual([]);
    expect(target.received.at(-1)?.headers).toMatchObject({ authorization: 'tok-3\tok' });
  });
});
