import { compileErrors, validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../hub/src/server/openapi-document.js';

type Document = ReturnType<typeof buildOpenApiDocument>;
type OperationLike = { operationId?: string; tags?: string[] };

/** Each endpoint of the API document (and DESIGN.md's additions) as it lands, with its methods. */
const expectedOperations: Record<string, string[]> = {
  '/': ['get'],
  '/monitor/': ['get', 'post'],
  '/monitor/by-name': ['get'],
  '/monitor/{id}': ['get', 'put', 'delete'],
  '/runs/trigger/{monitorId}': ['post'],
  '/runs/': ['get'],
  '/runs/{id}': ['get'],
  '/secrets/{name}': ['get', 'put', 'delete'],
  '/secrets/resolve': ['post'],
  '/connections': ['get', 'post'],
  '/connections/{id}': ['get', 'delete'],
};

/** The resource schemas of the API document, by component name. */
const expectedSchemas = [
  'Monitor',
  'MonitorDefinition',
  'HttpRequestNode',
  'WaitNode',
  'AssertionNode',
  'Edge',
  'Frequency',
  'SecretOrString',
  'SecretReference',
  'StatusAssertion',
  'HeaderAssertion',
  'BodyAssertion',
  'ResponseTimeAssertion',
  'TextAssertion',
  'BinaryPredicate',
  'UnaryPredicate',
  'NotificationDefinition',
  'Trigger',
  'Routing',
  'Run',
  'RunMonitorSummary',
  'Connection',
  'Error',
  'Unauthorized',
];

describe('the OpenAPI document', () => {
  const document: Document = buildOpenApiDocument('1.2.3');

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('describes every endpoint with its methods', () => {
    for (const [path, methods] of Object.entries(expectedOperations)) {
      const item = document.paths?.[path] as Record<string, unknown> | undefined;
      expect(item, path).toBeDefined();
      expect(Object.keys(item ?? {})).toEqual(expect.arrayContaining(methods));
    }
  });

  it('names every resource schema as a component', () => {
    const names = Object.keys(document.components?.schemas ?? {}).map((name) => name.replace(/Output$/, ''));
    expect(names).toEqual(expect.arrayContaining(expectedSchemas));
  });

  it('gives every operation a unique operationId and a tag, as client generators need', () => {
    const seen = new Map<string, string>();
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item as Record<string, OperationLike>)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
        expect(seen.get(operation.operationId ?? ''), `${where} repeats an operationId`).toBeUndefined();
        seen.set(operation.operationId ?? '', where);
        expect(operation.tags?.length, where).toBeGreaterThan(0);
      }
    }
    expect(seen.size).toBeGreaterThanOrEqual(38);
  });

  it('names the recursive JSON value once, as the JsonValue component, and uses it by reference', () => {
    const text = JSON.stringify(document);
    expect(document.components?.schemas?.JsonValue).toBeDefined();
    expect(text).not.toMatch(/__schema\d/);
    expect(text.match(/"#\/components\/schemas\/JsonValue"/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it('documents the 405 answer and the dry run of monitor writes', () => {
    expect(document.components?.responses?.MethodNotAllowed).toBeDefined();
    expect(document.info.description).toContain('#/components/responses/MethodNotAllowed');
    for (const operation of [document.paths?.['/monitor/']?.post, document.paths?.['/monitor/{id}']?.put]) {
      const parameters = (operation?.parameters ?? []) as Array<{ name?: string; in?: string }>;
      expect(parameters).toContainEqual(expect.objectContaining({ name: 'dryRun', in: 'query' }));
    }
  });

  it('documents the 401 body on authenticated operations and none on the health check', () => {
    const listMonitors = document.paths?.['/monitor/']?.get;
    expect(Object.keys(listMonitors?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '403']),
    );
    expect(document.paths?.['/']?.get?.security).toEqual([]);
  });

  it('marks every request body required, and states request-only defaults in words (ADR 0039)', () => {
    const operations = Object.values(document.paths ?? {}).flatMap((path) =>
      Object.values((path ?? {}) as Record<string, unknown>),
    );
    const bodies = operations.flatMap((operation) =>
      typeof operation === 'object' && operation !== null && 'requestBody' in operation
        ? [operation.requestBody as { required?: boolean }]
        : [],
    );
    expect(bodies.length).toBeGreaterThanOrEqual(13);
    expect(bodies.filter((body) => body.required !== true)).toEqual([]);
    const definition = document.components?.schemas?.MonitorDefinition as {
      required: string[];
      properties: Record<string, { default?: unknown; description?: string }>;
    };
    expect(definition.required).not.toContain('environment');
    expect(definition.properties.environment).not.toHaveProperty('default');
    expect(definition.properties.environment?.description).toContain('default `default`');
    // A response always carries the field the hub defaulted: there the default stays.
    const monitor = document.components?.schemas?.Monitor as {
      properties: Record<string, { default?: unknown }>;
    };
    expect(monitor.properties.environment?.default).toBe('default');
  });
});
