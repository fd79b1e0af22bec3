import { secretReferenceSchema } from '../contract/secret-reference.js';
import { ValidationError } from '../http/errors.js';
import { formatIssuePath } from '../contract/issue-path.js';
import { SecretFieldError, SecretNotFoundError } from './secret-errors.js';
import type { SecretReader } from './secret-store.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface SecretRefContext {
  store: SecretReader;
  organizationId: string;
  /** The environment of the run: references name secrets of this environment only. */
  environment: string;
}

export interface ResolvedSecretRefs {
  /** The input with every `{ "$secret": ... }` object replaced by the string it refers to. */
  value: JsonValue;
  /** Every secret value used (whole values and picked fields), for createSecretRedactor. */
  secretValues: string[];
}

const REDACTED = '[secret]';

/**
 * Replaces each `{ "$secret": { ref, version = "latest", field? } }` inside `value` by the secret's value, at the
 * moment of use. Each (ref, version) is read once. A missing secret throws SecretNotFoundError ("secret NAME not
 * found in ENVIRONMENT"); no error raised here ever contains a value.
 */
export async function resolveSecretRefs(
  value: JsonValue,
  context: SecretRefContext,
): Promise<ResolvedSecretRefs> {
  const { store, organizationId, environment } = context;
  const reads = new Map<string, Promise<string | undefined>>();
  const used = new Set<string>();

  async function resolveRef(node: Record<string, JsonValue>, path: string): Promise<string> {
    const parsed = secretReferenceSchema.safeParse(node);
    if (!parsed.success) {
      const details = parsed.error.issues.map((issue) => ({
        path: formatIssuePath([path, ...issue.path].filter((part) => part !== '')),
        message: issue.message,
      }));
      throw new ValidationError(`invalid secret reference at ${details[0]?.path ?? path}`, details);
    }
    const { ref, version = 'latest', field } = parsed.data.$secret;
    const key = `${ref}\n${version}`;
    let read = reads.get(key);
    if (read === undefined) {
      read = store.read({ organizationId, environment }, ref, version);
      reads.set(key, read);
    }
    const secret = await read;
    if (secret === undefined) throw new SecretNotFoundError(ref, environment);
    used.add(secret);
    if (field === undefined) return secret;
    const picked = pickField(secret, field, ref, environment);
    used.add(picked);
    return picked;
  }

  async function walk(node: JsonValue, path: string): Promise<JsonValue> {
    if (Array.isArray(node)) return Promise.all(node.map((item, index) => walk(item, `${path}[${index}]`)));
    if (node === null || typeof node !== 'object') return node;
    if (Object.hasOwn(node, '$secret')) return resolveRef(node, path);
    const entries = await Promise.all(
      Object.entries(node).map(async ([key, child]) => [
        key,
        await walk(child, path === '' ? key : `${path}.${key}`),
      ]),
    );
    // fromEntries defines own properties, so a key such as "__proto__" stays data.
    return Object.fromEntries(entries) as Record<string, JsonValue>;
  }

  const resolved = await walk(value, '');
  return { value: resolved, secretValues: [...used] };
}

/** `field` of a secret whose value is a JSON object; the errors say what is wrong without quoting the value. */
function pickField(secret: string, field: string, ref: string, environment: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secret);
  } catch {
    throw new SecretFieldError(ref, environment, field, 'the value is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SecretFieldError(ref, environment, field, 'the value is not a JSON object');
  }
  if (!Object.hasOwn(parsed, field))
    throw new SecretFieldError(ref, environment, field, 'the object has no such key');
  const picked: unknown = (parsed as Record<string, unknown>)[field];
  if (typeof picked === 'string') return picked;
  if (typeof picked === 'number' || typeof picked === 'boolean') return String(picked);
  throw new SecretFieldError(ref, environment, field, 'its value is not a string, number or boolean');
}

/**
 * A function that replaces every appearance of the secret `values` in a text with "[secret]": as is, URL-encoded
 * and JSON-escaped, the forms in which a value used in a URL, header or body comes back inside an error message.
 * The pattern is compiled once, for redacting many texts of one run.
 */
export function createSecretRedactor(values: Iterable<string>): (text: string) => string {
  const forms = new Set<string>();
  for (const value of values) {
    for (const form of [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]) {
      if (form !== '') forms.add(form);
    }
  }
  if (forms.size === 0) return (text) => text;
  // One pass, longest first: a value containing another is hidden whole, and "[secret]" is never re-scanned.
  const pattern = new RegExp(
    [...forms]
      .sort((a, b) => b.length - a.length)
      .map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  return (text) => text.replace(pattern, REDACTED);
}

/** Redacts one text; see createSecretRedactor, which compiles the values once for many texts. */
export function redactSecretValues(text: string, values: Iterable<string>): string {
  return createSecretRedactor(values)(text);
}
