// Two adjustments client generators need of the request side (ADR 0039): every request body is required (each
// route parses its body with a schema that takes no absent body), and a schema only requests use states its
// defaults in words instead of a `default` keyword. openapi-typescript, with its default options, types a
// component property that has a `default` as always present (true of a response, where the hub fills it in), so
// a client had to pass `environment` although the hub defaults it. Response schemas keep their defaults: a
// schema used on both sides is split by zod-openapi into `X` and `XOutput` already.

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

export function adjustRequestBodies(document: { paths?: unknown; components?: unknown }): void {
  const operations = Object.values(isObject(document.paths) ? document.paths : {})
    .filter(isObject)
    .flatMap((path) => METHODS.map((method) => path[method]).filter(isObject));
  for (const operation of operations)
    if (isObject(operation.requestBody)) operation.requestBody.required = true;
  const schemas = isObject(document.components) ? document.components.schemas : undefined;
  if (!isObject(schemas)) return;
  const responseSide = reachable(
    schemas,
    operations.flatMap((operation) => [operation.responses, operation.parameters]),
    // Shared responses (the 405) are response-side too.
    isObject(document.components) ? document.components.responses : undefined,
  );
  for (const [name, schema] of Object.entries(schemas)) if (!responseSide.has(name)) describeDefaults(schema);
}

/** The component schemas `roots` refer to, directly or through other components. */
function reachable(schemas: Json, ...roots: unknown[]): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!isObject(value)) return;
    const ref = value.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const name = ref.slice('#/components/schemas/'.length);
      if (!found.has(name)) {
        found.add(name);
        visit(schemas[name]);
      }
    }
    Object.values(value).forEach(visit);
  };
  roots.forEach(visit);
  return found;
}

/** Moves each `default` of a request-only schema into its description (when the description does not say it). */
function describeDefaults(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(describeDefaults);
  if (!isObject(value)) return;
  if ('default' in value) {
    const description = typeof value.description === 'string' ? value.description : '';
    if (!/\bdefault\b/i.test(description))
      value.description = `${description}${description ? ' ' : ''}Default: \`${JSON.stringify(value.default)}\`.`;
    delete value.default;
  }
  Object.values(value).forEach(describeDefaults);
}
