import { PayloadTooLargeError } from '../http/errors.js';

/**
 * The names and values of one (organization, environment): what both backends store as one JSON object.
 * A Map, not a plain object, so names such as `__proto__` or `constructor` are ordinary names.
 */
export type SecretMap = ReadonlyMap<string, string>;

/** Secret Manager's payload limit; the local backend keeps the same one so both behave alike. */
const SECRET_MAP_LIMIT_BYTES = 64 * 1024;

export const emptySecretMap: SecretMap = new Map();

class StoredSecretMapInvalidError extends Error {
  constructor(environment: string) {
    super(`the stored secret map of ${environment} is not a JSON object of strings`);
    this.name = new.target.name;
  }
}

/** The stored form: a JSON object with sorted keys, refused with 413 when it exceeds the limit. */
export function encodeSecretMap(map: SecretMap, environment: string): string {
  const text = JSON.stringify(Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > SECRET_MAP_LIMIT_BYTES) {
    throw new PayloadTooLargeError(
      `the secrets of ${environment} would take ${bytes} bytes; one environment holds at most ${SECRET_MAP_LIMIT_BYTES} bytes (64 KiB)`,
    );
  }
  return text;
}

/** Parses a stored map. The error never quotes the text: it is full of secret values. */
export function decodeSecretMap(text: string, environment: string): SecretMap {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new StoredSecretMapInvalidError(environment);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new StoredSecretMapInvalidError(environment);
  }
  const entries = Object.entries(parsed);
  if (!entries.every((entry): entry is [string, string] => typeof entry[1] === 'string')) {
    throw new StoredSecretMapInvalidError(environment);
  }
  return new Map(entries);
}

function withSecret(map: SecretMap, name: string, value: string): SecretMap {
  return new Map(map).set(name, value);
}

function withoutSecret(map: SecretMap, name: string): SecretMap {
  const next = new Map(map);
  next.delete(name);
  return next;
}

/** What a write does to a map: a `next` map to store (empty: delete it), or none, and what the caller learns. */
export type SecretMapChange<T> = { next: SecretMap; result: T } | { result: T };

/** PUT: set `name`; storing nothing when the value is already there. */
export function putSecretChange(name: string, value: string) {
  return (map: SecretMap): SecretMapChange<{ created: boolean }> => {
    const created = !map.has(name);
    return map.get(name) === value
      ? { result: { created } }
      : { next: withSecret(map, name, value), result: { created } };
  };
}

/** DELETE: drop `name`; false (and nothing stored) when it was not there. */
export function removeSecretChange(name: string) {
  return (map: SecretMap): SecretMapChange<boolean> =>
    map.has(name) ? { next: withoutSecret(map, name), result: true } : { result: false };
}
