// The one builder of monitor definitions in tests: a valid definition in the API's form, and what a test changes
// on top. The fixtures of each test folder build on it (test/monitors/fixtures.ts, test/runs/run-fixtures.ts,
// test/metrics/metrics-fixtures.ts, test/runner/monitor-builders.ts), so a change of the schema is made here once.

/** A definition as a request body: loose enough for tests that send invalid ones on purpose. */
export type MonitorBody = Record<string, unknown> & {
  nodes: Array<Record<string, unknown>>;
  edges: Array<{ from: string; to: string }>;
  notifications?: Array<Record<string, unknown>>;
};

/** A GET of `base` + `path` whose body is read as JSON. */
export function getNode(id: string, base: string, path = '/'): Record<string, unknown> {
  return { id, type: 'HTTP_REQUEST', method: 'GET', base, path, response_format: 'JSON' };
}

/** An ASSERTION node: node `nodeId` answered `status`. */
export function statusAssertionNode(id: string, nodeId: string, status = 200): Record<string, unknown> {
  return {
    id,
    type: 'ASSERTION',
    assertions: [
      { nodeId, subject: 'status', predicate: { type: 'binary', operator: 'EQUAL', expected: status } },
    ],
  };
}

/**
 * A valid definition: project `shop`, name `checkout`, version 1.0, environment `production`, every 5 minutes, one
 * GET of a closed loopback port (nothing answers: the run fails, which most tests never reach). `overrides`
 * replace whole fields.
 */
export function monitorDefinition(overrides: Record<string, unknown> = {}): MonitorBody {
  return {
    project: 'shop',
    name: 'checkout',
    version: '1.0',
    environment: 'production',
    frequency: { every: 5, unit: 'MINUTE' },
    nodes: [getNode('get', 'http://127.0.0.1:9')],
    edges: [],
    ...overrides,
  };
}
