// A target that answers what PostgreSQL cannot store as is, and a monitor that records those answers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers what PostgreSQL cannot store as is: NUL as text, NUL and a lone surrogate inside JSON strings. */
export async function startHostileTarget(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const answers: Record<string, [string, string]> = {
      '/text-nul': ['text/plain', 'x\u0000y'],
      '/json-nul': ['application/json', '{"v":"a\\u0000b"}'],
      '/json-surrogate': ['application/json', '{"v":"\\ud800!"}'],
      // The caller's token, echoed back as a body that is not JSON.
      '/echo': ['application/json', req.headers.authorization ?? ''],
    };
    const [type, body] = answers[req.url ?? ''] ?? ['text/plain', 'unknown'];
    res.writeHead(200, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const equals = (nodeId: string, subject: 'text' | 'body', expected: string, path?: string) => ({
  nodeId,
  subject,
  ...(path === undefined ? {} : { path }),
  predicate: { type: 'binary', operator: 'EQUAL', expected },
});

/** Three requests whose answers hold NUL or a lone surrogate, each checked by an assertion that fails. */
export function hostileMonitor(targetUrl: string) {
  const get = (id: string, path: string, format: 'JSON' | 'XML') => ({
    id,
    type: 'HTTP_REQUEST',
    method: 'GET',
    base: targetUrl,
    path,
    response_format: format,
  });
  return {
    project: 'shop',
    name: 'hostile',
    version: '1.0',
    environment: 'production',
    frequency: { every: 1, unit: 'HOUR' },
    nodes: [
      get('text', '/text-nul', 'XML'),
      get('json', '/json-nul', 'JSON'),
      get('lone', '/json-surrogate', 'JSON'),
      {
        id: 'check',
        type: 'ASSERTION',
        assertions: [
          equals('text', 'text', 'xy'),
          equals('json', 'body', 'ab', '$.v'),
          equals('lone', 'body', '!', '$.v'),
        ],
      },
    ],
    edges: ['text', 'json', 'lone'].map((from) => ({ from, to: 'check' })),
  };
}

/** What the assertions of a stored run recorded as actual values. */
export function storedActuals(row: { steps: unknown }): unknown[] {
  const steps = row.steps as Array<{ nodeId: string; assertions?: Array<{ actual: unknown }> }>;
  return steps.find((step) => step.nodeId === 'check')?.assertions?.map((a) => a.actual) ?? [];
}

export const ESCAPED_ACTUALS = ['x\\u0000y', 'a\\u0000b', '\uFFFD!'];
