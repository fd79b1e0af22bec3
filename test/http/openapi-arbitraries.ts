// fast-check arbitraries for the values an OpenAPI 3.1 document describes: bodies and parameters that are mostly
// shaped right (right discriminators, right field names), so that a hostile value planted in them reaches the
// deep parts of validation rather than being turned away at the first wrong type.
import { fc } from '@fast-check/vitest';

export type JsonSchema = { [key: string]: unknown };
export type OpenApiDocument = {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
};
export interface OpenApiOperation {
  parameters?: Array<{ in: 'path' | 'query'; name: string; schema: JsonSchema }>;
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

const MAX_DEPTH = 6;

function resolve(schema: JsonSchema, document: OpenApiDocument): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const target = document.components.schemas[ref.replace('#/components/schemas/', '')];
  if (target === undefined) throw new Error(`unresolved ${ref}`);
  return resolve(target, document);
}

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  if (typeof schema.pattern === 'string') {
    try {
      return fc.oneof(fc.stringMatching(new RegExp(schema.pattern)), fc.string({ maxLength: 8 }));
    } catch {
      return fc.string({ maxLength: 16 });
    }
  }
  switch (schema.format) {
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  }
  return fc.string({ maxLength: 16 });
}

function numberFor(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000;
  const inRange = integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true });
  return fc.oneof({ weight: 3, arbitrary: inRange }, fc.integer(), fc.double({ noNaN: true }));
}

function objectFor(schema: JsonSchema, document: OpenApiDocument, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  if (Object.keys(properties).length === 0) {
    const values =
      typeof schema.additionalProperties === 'object'
        ? valueFor(schema.additionalProperties as JsonSchema, document, depth + 1)
        : fc.jsonValue({ maxDepth: 2 });
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), values, { maxKeys: 3 });
  }
  const required = (schema.required ?? []) as string[];
  const model = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [name, valueFor(property, document, depth + 1)]),
  );
  return fc.record(model, { requiredKeys: required.filter((name) => name in model) });
}

/** A value shaped by `schema`, though not always valid: patterns and ranges are sometimes ignored. */
export function valueFor(schema: JsonSchema, document: OpenApiDocument, depth = 0): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, document);
  if (depth > MAX_DEPTH) return fc.constantFrom(null, 'deep', 0);
  if ('const' in resolved) return fc.constant(resolved.const);
  if (Array.isArray(resolved.enum)) return fc.constantFrom(...(resolved.enum as unknown[]));
  const branches = (resolved.oneOf ?? resolved.anyOf) as JsonSchema[] | undefined;
  if (branches) return fc.oneof(...branches.map((branch) => valueFor(branch, document, depth + 1)));
  switch (resolved.type) {
    case 'string':
      return stringFor(resolved);
    case 'integer':
      return numberFor(resolved, true);
    case 'number':
      return numberFor(resolved, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = resolved.items === undefined ? {} : (resolved.items as JsonSchema);
      return fc.array(valueFor(items, document, depth + 1), { maxLength: 3 });
    }
    case 'object':
      return objectFor(resolved, document, depth);
  }
  return fc.jsonValue({ maxDepth: 2 });
}
