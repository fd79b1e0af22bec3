import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import type { SecretScope } from '../../hub/src/secrets/secret-store.js';
import { assertionNode, httpNode, monitorOf, runContext } from './monitor-builders.js';
import { startTargetServer, type TargetServer } from './target-server.js';
import { loopbackEgress } from '../harness/egress.js';

const TOKEN = 'tok-6f1c2a9e-very-secret';
const PASSWORD = 'p@ss w/ord';
const CLIENT = JSON.stringify({ id: 'web', secret: 'client-secret-77' });
const ECHO_PATH = `/echo?key=${TOKEN}`;

describe('secret references in a run', () => {
  let target: TargetServer;
  const runner = createMonitorRunner({ egress: loopbackEgress });
  const reads: Array<{ scope: SecretScope; name: string; version: string | undefined }> = [];
  const values: Record<string, string> = {
    api_token: TOKEN,
    password: PASSWORD,
    client: CLIENT,
    echo_path: ECHO_PATH,
  };
  const secrets = {
    read: (scope: SecretScope, name: string, version?: string) => {
      reads.push({ scope, name, version });
      return Promise.resolve(values[name]);
    },
  };

  beforeAll(async () => {
    target = await startTargetServer();
  });
  afterAll(async () => {
    await runner.close();
    await target.close();
  });

  it('sends resolved values and never lets one appear anywhere in the outcome, even when the target echoes it', async () => {
    const monitor = monitorOf(
      [
        httpNode(
          'login',
          target.url,
          { $secret: { ref: 'echo_path' } },
          {
            method: 'POST',
            headers: {
              Authorization: { $secret: { ref: 'api_token' } },
              'X-Client-Secret': { $secret: { ref: 'client', field: 'secret' } },
            },
            body: { user: 'monitor', password: { $secret: { ref: 'password', version: 'latest' } } },
          },
        ),
        assertionNode('verify', [
          {
            nodeId: 'login',
            subject: 'body',
            path: '$.headers.authorization',
            predicate: { type: 'binary', operator: 'EQUAL', expected: 'something else' },
          },
          {
            nodeId: 'login',
            subject: 'body',
            path: '$.headers',
            predicate: { type: 'unary', operator: 'IS_EMPTY' },
          },
          {
            nodeId: 'login',
            subject: 'text',
            predicate: { type: 'binary', operator: 'CONTAINS', expected: 'nowhere' },
          },
          {
            nodeId: 'login',
            subject: 'body',
            path: '$.body',
            predicate: { type: 'binary', operator: 'STARTS_WITH', expected: 'x' },
          },
        ]),
      ],
      [['login', 'verify']],
      'staging',
    );
    const outcome = await runner.run(monitor, { secrets, organizationId: 'acme' });

    const received = target.received.at(-1);
    expect(received?.url).toBe(ECHO_PATH);
    expect(received?.headers).toMatchObject({ authorization: TOKEN, 'x-client-secret': 'client-secret-77' });
    expect(JSON.parse(received?.body ?? '{}')).toEqual({ user: 'monitor', password: PASSWORD });
    expect(
      reads.every((read) => read.scope.organizationId === 'acme' && read.scope.environment === 'staging'),
    ).toBe(true);

    expect(outcome.errors).toHaveLength(4);
    const everything = JSON.stringify(outcome);
    for (const value of [TOKEN, PASSWORD, CLIENT, 'client-secret-77', encodeURIComponent(PASSWORD)])
      expect(everything).not.toContain(value);
    // The whole path is the secret, so the whole path is hidden.
    expect(outcome.steps[0]?.request?.url).toBe(`${target.url}[secret]`);
    expect(outcome.errors[0]).toBe(
      'verify: login body $.headers.authorization EQUAL "something else", got "[secret]"',
    );
  });

  it('fails the step with the missing name and environment, skipping its dependants', async () => {
    const monitor = monitorOf(
      [
        httpNode('login', target.url, '/echo', {
          headers: { Authorization: { $secret: { ref: 'not_there' } } },
        }),
        assertionNode('verify', [
          {
            nodeId: 'login',
            subject: 'status',
            predicate: { type: 'binary', operator: 'EQUAL', expected: 200 },
          },
        ]),
      ],
      [['login', 'verify']],
      'staging',
    );
    const before = target.received.length;
    const outcome = await runner.run(monitor, { secrets, organizationId: 'acme' });
    expect(outcome).toMatchObject({
      success: false,
      errors: ['login: secret not_there not found in staging'],
      errorClasses: ['runner'],
    });
    expect(outcome.steps.map((step) => step.status)).toEqual(['failed', 'skipped']);
    expect(target.received.length).toBe(before);
  });

  it('works with a reader that has no secrets when the monitor uses none', async () => {
    const outcome = await runner.run(monitorOf([httpNode('plain', target.url, '/json')]), runContext());
    expect(outcome.success).toBe(true);
  });
});
