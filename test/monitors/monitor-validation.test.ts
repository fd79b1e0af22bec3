import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { validMonitor, type Definition } from './fixtures.js';

function withNode(index: number, change: Record<string, unknown>): Definition {
  const monitor = validMonitor();
  monitor.nodes[index] = { ...monitor.nodes[index], ...change };
  return monitor;
}

function withAssertion(assertion: Record<string, unknown>): Definition {
  return withNode(2, { assertions: [assertion] });
}

const binary = (operator: string, expected: unknown) => ({ type: 'binary', operator, expected });

function withNotification(notification: Record<string, unknown>): Definition {
  return validMonitor({ notifications: [notification] });
}

const manyNodes = Array.from({ length: 101 }, (_, i) => ({ id: `wait-${i}`, type: 'WAIT', duration_ms: 1 }));

// [what is wrong, the body, the field path the answer must name, a word the message must contain]
const cases: Array<[string, unknown, string, string]> = [
  ['an unknown HTTP method', withNode(0, { method: 'FETCH' }), 'nodes[0].method', 'GET'],
  ['an unknown node type', withNode(1, { type: 'SLEEP' }), 'nodes[1].type', 'HTTP_REQUEST'],
  [
    'an unknown response format',
    withNode(0, { response_format: 'HTML' }),
    'nodes[0].response_format',
    'JSON',
  ],
  ['a negative wait', withNode(1, { duration_ms: -5 }), 'nodes[1].duration_ms', '>=0'],
  [
    'a wait longer than the run timeout',
    withNode(1, { duration_ms: 120_001 }),
    'nodes[1].duration_ms',
    '120000',
  ],
  ['a missing base', withNode(0, { base: undefined }), 'nodes[0].base', 'required'],
  [
    'a malformed secret reference',
    withNode(0, { path: { $secret: { ref: '1password' } } }),
    'nodes[0].path.$secret.ref',
    'secret name',
  ],
  ['an unknown field in a node', withNode(0, { timeoutMs: 5 }), 'nodes[0].timeoutMs', 'unknown field'],
  ['a duplicate node id', withNode(1, { id: 'cart' }), 'nodes[1].id', 'duplicate node id "cart"'],
  [
    'an edge to an unknown node',
    validMonitor({ edges: [{ from: 'cart', to: 'ghost' }] }),
    'edges[0].to',
    'unknown node "ghost"',
  ],
  [
    'a cycle',
    validMonitor({
      edges: [
        { from: 'cart', to: 'pause' },
        { from: 'pause', to: 'verify' },
        { from: 'pause', to: 'cart' },
      ],
    }),
    'edges[2]',
    'cycle: cart -> pause -> cart',
  ],
  [
    'an assertion on a request that does not run before it',
    validMonitor({ edges: [{ from: 'cart', to: 'pause' }] }),
    'nodes[2].assertions[0].nodeId',
    'must run before',
  ],
  [
    'an assertion on a WAIT node',
    withAssertion({ nodeId: 'pause', subject: 'status', predicate: binary('EQUAL', 200) }),
    'nodes[2].assertions[0].nodeId',
    'not an HTTP_REQUEST node',
  ],
  ['more than 100 nodes', validMonitor({ nodes: manyNodes, edges: [] }), 'nodes', '100'],
  [
    'an unknown assertion subject',
    withAssertion({ nodeId: 'cart', subject: 'cookies', predicate: binary('EQUAL', 1) }),
    'nodes[2].assertions[0].subject',
    'status',
  ],
  [
    'an unknown operator',
    withAssertion({ nodeId: 'cart', subject: 'status', predicate: binary('ROUGHLY', 200) }),
    'nodes[2].assertions[0].predicate.operator',
    'EQUAL',
  ],
  [
    'a unary predicate on status',
    withAssertion({ nodeId: 'cart', subject: 'status', predicate: { type: 'unary', operator: 'IS_NULL' } }),
    'nodes[2].assertions[0].predicate.type',
    'binary',
  ],
  [
    'a numeric operator with a string',
    withAssertion({ nodeId: 'cart', subject: 'status', predicate: binary('GREATER_THAN', 'two hundred') }),
    'nodes[2].assertions[0].predicate.expected',
    'compares numbers',
  ],
  [
    'a header assertion without headerName',
    withAssertion({ nodeId: 'cart', subject: 'headers', predicate: { type: 'unary', operator: 'IS_NULL' } }),
    'nodes[2].assertions[0].headerName',
    'required',
  ],
  [
    'a body path that is not JSONPath',
    withAssertion({ nodeId: 'cart', subject: 'body', path: 'items[0]', predicate: binary('EQUAL', 1) }),
    'nodes[2].assertions[0].path',
    'JSONPath',
  ],
  [
    'a response time compared with a string operator',
    withAssertion({ nodeId: 'cart', subject: 'responseTime', predicate: binary('CONTAINS', 5) }),
    'nodes[2].assertions[0].predicate.operator',
    'milliseconds',
  ],
  [
    'an interval under 10 seconds',
    validMonitor({ frequency: { every: 0.1, unit: 'MINUTE' } }),
    'frequency.every',
    '10 seconds',
  ],
  [
    'an interval over 30 days',
    validMonitor({ frequency: { every: 31, unit: 'DAY' } }),
    'frequency.every',
    '30 days',
  ],
  [
    'an unknown frequency unit',
    validMonitor({ frequency: { every: 5, unit: 'SECOND' } }),
    'frequency.unit',
    'MINUTE',
  ],
  ['a schema version other than 1.0', validMonitor({ version: '2.0' }), 'version', '1.0'],
  ['a missing project', validMonitor({ project: undefined }), 'project', 'required'],
  ['an unknown top-level field', validMonitor({ colour: 'red' }), 'colour', 'unknown field'],
  [
    'an unknown location',
    validMonitor({ locations: ['eu-west', 'mars'] }),
    'locations[1]',
    'unknown location "mars"',
  ],
  [
    'consecutive_failures below 1',
    withNotification({
      trigger: { type: 'consecutive_failures', threshold: 0 },
      routing: { channelType: 'webhook' },
    }),
    'notifications[0].trigger.threshold',
    '>=1',
  ],
  [
    'success_rate_below above 100',
    withNotification({
      trigger: { type: 'success_rate_below', threshold: 101, window_minutes: 5 },
      routing: { channelType: 'webhook' },
    }),
    'notifications[0].trigger.threshold',
    '100',
  ],
  [
    'a window of 0 minutes',
    withNotification({
      trigger: { type: 'success_rate_below', threshold: 90, window_minutes: 0 },
      routing: { channelType: 'webhook' },
    }),
    'notifications[0].trigger.window_minutes',
    '>=1',
  ],
  [
    'a negative latency threshold',
    withNotification({
      trigger: { type: 'latency_above', threshold_ms: -1, percentile: 'p95', window_minutes: 5 },
      routing: { channelType: 'webhook' },
    }),
    'notifications[0].trigger.threshold_ms',
    '>=0',
  ],
  [
    'an unknown percentile',
    withNotification({
      trigger: { type: 'latency_above', threshold_ms: 500, percentile: 'p90', window_minutes: 5 },
      routing: { channelType: 'webhook' },
    }),
    'notifications[0].trigger.percentile',
    'p95',
  ],
  [
    'an unknown trigger',
    withNotification({ trigger: { type: 'run_slow' }, routing: { channelType: 'webhook' } }),
    'notifications[0].trigger.type',
    'run_failed',
  ],
  [
    'a chat routing without channel',
    withNotification({ trigger: { type: 'run_failed' }, routing: { channelType: 'chat' } }),
    'notifications[0].routing.channel',
    'required',
  ],
  [
    'an email routing with a bad address',
    withNotification({
      trigger: { type: 'run_failed' },
      routing: { channelType: 'email', toAddresses: ['oncall'] },
    }),
    'notifications[0].routing.toAddresses[0]',
    'email',
  ],
  [
    'a cooldown over a day',
    withNotification({
      trigger: { type: 'run_failed' },
      routing: { channelType: 'webhook' },
      cooldownMinutes: 1441,
    }),
    'notifications[0].cooldownMinutes',
    '1440',
  ],
];

describe('monitor validation over HTTP', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.close());

  it.each(cases)(
    'when the monitor has %s, PUT answers 400 naming the field',
    async (_case, body, path, words) => {
      const res = await hub.request('PUT', '/monitor/web-1', { as: 'acmeEditor', body });
      expect(res.status).toBe(400);
      const answer = (await res.json()) as {
        error: string;
        code: string;
        details: Array<{ path: string; message: string }>;
      };
      expect(answer.code).toBe('validation_failed');
      const detail = answer.details.find((d) => d.path === path);
      expect(detail, `details were ${JSON.stringify(answer.details)}`).toBeDefined();
      expect(detail?.message).toContain(words);
      expect(answer.error).toContain(path);
    },
  );

  it('stores nothing for any of them', async () => {
    // Sends every case itself, so it checks something when run alone (-t) as well as after the cases above.
    for (const [, body] of cases) {
      expect((await hub.request('PUT', '/monitor/web-1', { as: 'acmeEditor', body })).status).toBe(400);
    }
    expect(await hub.db.selectFrom('monitors').selectAll().execute()).toEqual([]);
  });

  it('refuses an id that is not URL-safe or longer than 64 characters', async () => {
    for (const id of ['x'.repeat(65), 'has%20space', '-leading']) {
      const res = await hub.request('PUT', `/monitor/${id}`, { body: validMonitor() });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ details: [{ path: 'id' }] });
    }
  });
});
