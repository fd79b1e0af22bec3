import { z } from 'zod';

/** How many arrays and objects may nest inside one JSON value of a definition (a request `body`, `expected`). */
export const MAX_JSON_DEPTH = 64;

/**
 * Which top-level field of `value` nests arrays and objects more than `limit` levels deep (`1` is 0 levels, `[]`
 * 1): its key or index, '' when that is `value` itself, undefined when nothing does.
 */
function fieldNestingDeeperThan(value: unknown, limit: number): PropertyKey | undefined {
  // An explicit stack: a body of 1 MiB can nest ~500,000 levels, far past what recursion survives.
  const pending: Array<{ value: unknown; depth: number; field: PropertyKey }> = [
    { value, depth: 0, field: '' },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > limit) return next.field;
    for (const [key, child] of Object.entries(next.value)) {
      const field = depth === 1 ? (Array.isArray(next.value) ? Number(key) : key) : next.field;
      pending.push({ value: child, depth, field });
    }
  }
  return undefined;
}

/** Whether `value` nests arrays and objects more than `limit` levels deep. */
const nestsDeeperThan = (value: unknown, limit: number): boolean =>
  fieldNestingDeeperThan(value, limit) !== undefined;

/**
 * Any JSON value at most MAX_JSON_DEPTH levels deep. `z.json()` validates recursively, a few stack frames per level,
 * so deep input would overflow the stack (a 500): the depth is checked first, and `z.json()` sees only what passed.
 */
const jsonValueSchema = z.json();
// One named `JsonValue` component in the OpenAPI document, rendered as the empty schema, which JSON Schema defines
// as accepting every JSON value. The recursive union says the same, but client generators turn its self-reference
// into a type TypeScript refuses (TS2502; docs/adr/0016-openapi-for-client-generators.md).
z.globalRegistry.add(jsonValueSchema, {
  id: 'JsonValue',
  description: 'Any JSON value: string, number, boolean, null, array or object.',
  override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    delete jsonSchema.anyOf;
  },
});

export const boundedJsonSchema = z.preprocess((value, ctx) => {
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
    ctx.addIssue({
      code: 'custom',
      message: `JSON may nest at most ${MAX_JSON_DEPTH} levels of arrays and objects`,
      input: value,
    });
  }
  return value;
}, jsonValueSchema);
