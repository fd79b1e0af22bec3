// Turns the JSON Schema that zod writes (draft 2020-12, `$ref`s into `$defs`) into a structural schema that
// kube-apiserver v1.20 accepts for a CRD: every node typed, no `additionalProperties: false`, no `const`, no `$ref`,
// and no type inside `oneOf`/`anyOf`. Unions of objects are flattened into one object whose variant rules stay as
// `oneOf` branches that name only the discriminator value and `required`; any other union (a string or a secret
// reference, arbitrary JSON) keeps its value unchecked here with `x-kubernetes-preserve-unknown-fields`, because the
// hub validates the definition in full anyway and reports its message in the `Synced` condition.
export type JsonSchema = { [key: string]: unknown };

const dropped = new Set(['$schema', 'id', 'default', '$defs', 'propertyNames', 'additionalProperties']);

export function toStructuralSchema(root: JsonSchema): JsonSchema {
  const defs = (root.$defs ?? {}) as Record<string, JsonSchema>;
  return convert(root, defs, 'value', true);
}

function convert(node: JsonSchema, defs: Record<string, JsonSchema>, name: string, required: boolean) {
  const resolved = resolveRef(node, defs);
  const alternatives = (resolved.oneOf ?? resolved.anyOf) as JsonSchema[] | undefined;
  let result: JsonSchema;
  if (alternatives) {
    const branches = alternatives.map((branch) => resolveRef(branch, defs));
    // `z.json()` (every JSON type) and string-or-object unions cannot be typed structurally.
    result = branches.every((branch) => branch.type === 'object' && branch.properties)
      ? flattenObjectUnion(branches.map((branch) => convert(branch, defs, name, required)))
      : { 'x-kubernetes-preserve-unknown-fields': true };
  } else {
    result = convertPlain(resolved, defs);
  }
  const description = resolved.description ?? node.description;
  result.description = withAllowedValues(
    typeof description === 'string' ? description : `${name}: ${required ? 'required' : 'optional'}.`,
    result,
    resolved.default ?? node.default,
  );
  return result;
}

const code = (value: unknown) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;

/** What `kubectl explain` should say beyond the contract's words: the allowed values, the default, the range. */
function withAllowedValues(description: string, schema: JsonSchema, fallback: unknown): string {
  const notes: string[] = [];
  const values = schema.enum as unknown[] | undefined;
  if (values && values.length > 1 && !values.every((value) => description.includes(String(value))))
    notes.push(`One of ${values.map(code).join(', ')}.`);
  if (fallback !== undefined && !/default/i.test(description)) notes.push(`Default ${code(fallback)}.`);
  const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
  if (minimum !== undefined && maximum !== undefined && !description.includes(String(maximum)))
    notes.push(`From ${minimum} to ${maximum}.`);
  return [description, ...notes].join(' ');
}

function convertPlain(node: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const result: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (dropped.has(key) || key === 'description') continue;
    if (key === 'const') result.enum = [value];
    else if (key === 'exclusiveMinimum' && typeof value === 'number') {
      result.minimum = value;
      result.exclusiveMinimum = true;
    } else if (key === 'exclusiveMaximum' && typeof value === 'number') {
      result.maximum = value;
      result.exclusiveMaximum = true;
    } else if (key === 'properties') {
      const requiredNames = new Set((node.required ?? []) as string[]);
      result.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([property, schema]) => [
          property,
          convert(schema, defs, property, requiredNames.has(property)),
        ]),
      );
    } else if (key === 'items') result.items = convert(value as JsonSchema, defs, 'item', true);
    else result[key] = value;
  }
  // A map (`z.record`): its values keep their schema; `additionalProperties: false` of strict objects is dropped.
  if (typeof node.additionalProperties === 'object' && node.additionalProperties !== null) {
    result.additionalProperties = convert(node.additionalProperties as JsonSchema, defs, 'value', true);
  }
  return result;
}

function resolveRef(node: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  if (typeof node.$ref !== 'string') return node;
  const name = node.$ref.replace('#/$defs/', '');
  const target = defs[name];
  if (!target) throw new Error(`unresolved $ref ${node.$ref}`);
  const { $ref: _ref, ...siblings } = node;
  return resolveRef({ ...target, ...siblings }, defs);
}

/**
 * One object with every variant's properties; the discriminator (the property each variant pins to one value)
 * lists all values, and `oneOf` keeps each variant's required fields tied to its discriminator value.
 */
function flattenObjectUnion(variants: JsonSchema[]): JsonSchema {
  const merged = mergeAlternatives(variants);
  const discriminator = Object.keys(merged.properties as Record<string, JsonSchema>).find((property) =>
    variants.every((variant) => singleEnumValue(variant, property) !== undefined),
  );
  if (!discriminator) return merged;
  const values = variants.map((variant) => singleEnumValue(variant, discriminator));
  if (new Set(values).size !== values.length) return merged;
  merged.oneOf = variants.map((variant, index) => ({
    properties: { [discriminator]: { enum: [values[index]] } },
    required: variant.required ?? [discriminator],
  }));
  describePerVariant(merged, variants, discriminator, values);
  return merged;
}

/**
 * A field that only some variants have says for which `type` it is required or optional, instead of the merged
 * "required" that would make every variant's fields look mandatory in `kubectl explain`.
 */
function describePerVariant(
  merged: JsonSchema,
  variants: JsonSchema[],
  discriminator: string,
  values: unknown[],
) {
  const list = (each: unknown[]) => each.map(code).join(' or ');
  for (const [property, schema] of Object.entries(merged.properties as Record<string, JsonSchema>)) {
    if (property === discriminator) {
      schema.description = `${discriminator}: required. One of ${values.map(code).join(', ')}; which other fields apply depends on it.`;
      continue;
    }
    const having = variants.filter((variant) => (variant.properties as Record<string, JsonSchema>)[property]);
    if (having.length === variants.length) continue;
    const requiredIn = having.filter((variant) => ((variant.required ?? []) as string[]).includes(property));
    const optionalIn = having.filter((variant) => !requiredIn.includes(variant));
    const valueOf = (variant: JsonSchema) => values[variants.indexOf(variant)];
    const when = [
      ...(requiredIn.length ? [`required when ${discriminator} is ${list(requiredIn.map(valueOf))}`] : []),
      ...(optionalIn.length ? [`optional when ${discriminator} is ${list(optionalIn.map(valueOf))}`] : []),
    ].join(', ');
    const described = (having[0]?.properties as Record<string, JsonSchema>)[property]?.description;
    const own = (typeof described === 'string' ? described : '')
      .replace(new RegExp(`^${property}: (required|optional)(\\.\\s*|, )?`), '')
      .replace(/^./, (first) => first.toUpperCase());
    schema.description = `${property}: ${when}; not allowed otherwise.${own ? ` ${own}` : ''}`;
  }
}

function singleEnumValue(variant: JsonSchema, property: string): unknown {
  const schema = (variant.properties as Record<string, JsonSchema> | undefined)?.[property];
  const values = schema?.enum as unknown[] | undefined;
  return values?.length === 1 ? values[0] : undefined;
}

/** The loosest schema that every alternative satisfies: what a flattened union can still check. */
function mergeAlternatives(alternatives: JsonSchema[]): JsonSchema {
  const [first, ...rest] = alternatives;
  if (!first) throw new Error('no alternatives to merge');
  if (rest.every((other) => JSON.stringify(other) === JSON.stringify(first))) return first;
  const descriptions = [...new Set(alternatives.map((each) => each.description).filter(Boolean))];
  const description = descriptions.join(' ');
  if (alternatives.some((each) => each['x-kubernetes-preserve-unknown-fields'])) {
    return { 'x-kubernetes-preserve-unknown-fields': true, description };
  }
  const types = new Set(alternatives.map((each) => each.type));
  if (types.size === 1 && types.has('object')) {
    const names = [...new Set(alternatives.flatMap((each) => Object.keys(each.properties ?? {})))];
    const properties = Object.fromEntries(
      names.map((property) => [
        property,
        mergeAlternatives(
          alternatives
            .map((each) => (each.properties as Record<string, JsonSchema> | undefined)?.[property])
            .filter((schema): schema is JsonSchema => schema !== undefined),
        ),
      ]),
    );
    const required = alternatives
      .map((each) => (each.required ?? []) as string[])
      .reduce((common, next) => common.filter((property) => next.includes(property)));
    return { type: 'object', description, properties, ...(required.length > 0 ? { required } : {}) };
  }
  if ([...types].every((type) => type === 'integer' || type === 'number')) {
    return { type: types.has('number') ? 'number' : 'integer', description };
  }
  if (types.size === 1 && types.has('string')) {
    const enums = alternatives.map((each) => each.enum as unknown[] | undefined);
    const allEnums = enums.every((values) => values !== undefined);
    return { type: 'string', description, ...(allEnums ? { enum: [...new Set(enums.flat())] } : {}) };
  }
  if (types.size === 1 && types.has('array')) {
    return {
      type: 'array',
      description,
      items: mergeAlternatives(alternatives.map((each) => each.items as JsonSchema)),
    };
  }
  return { 'x-kubernetes-preserve-unknown-fields': true, description };
}
