// Every answer the hub gives is one the document lists for that operation: malformed path parameters, unknown
// ids, missing credentials and unserved methods are sent to the real app, and each status is looked up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../hub/src/server/openapi-document.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

const document = buildOpenApiDocument('1.2.3');
type Operation = { responses?: Record<string, unknown> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function operations(): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = (item as Record<string, Operation | undefined>)[method];
      return operation === undefined ? [] : [{ method, path, operation }];
    }),
  );
}

/** The path with each parameter replaced by `value`. */
const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, encodeURIComponent(value));

describe('the statuses the hub answers', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.close());

  it('are documented for malformed and unknown path parameters, with and without credentials', async () => {
    const undocumented: string[] = [];
    const parameterised = operations().filter(({ path }) => path.includes('{'));
    expect(parameterised.length).toBeGreaterThan(10);
    for (const { method, path, operation } of parameterised) {
      for (const value of ['not a valid id!', 'x'.repeat(300), 'mon_000000000000000000000000']) {
        for (const as of ['acmeAdmin', null] as const) {
          const body = method === 'get' || method === 'delete' ? undefined : {};
          const response = await hub.request(method.toUpperCase(), fill(path, value), { as, body });
          await response.body?.cancel();
          if (!(String(response.status) in (operation.responses ?? {})))
            undocumented.push(`${method.toUpperCase()} ${fill(path, value)} as ${as}: ${response.status}`);
        }
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('answer 405 with Allow for a method a path does not serve, as the shared response says', async () => {
    for (const path of ['/monitor/', '/monitor/mon_000000000000000000000000', '/connections']) {
      const response = await hub.request('PATCH', path, { body: {} });
      expect(response.status, path).toBe(405);
      expect(response.headers.get('allow'), path).toMatch(/GET/);
      expect(((await response.json()) as { code: string }).code).toBe('method_not_allowed');
    }
  });
});
