// One behavioural suite for every secrets backend, on both database engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { PayloadTooLargeError } from '../../hub/src/http/errors.js';
import type { SecretScope, SecretStore } from '../../hub/src/secrets/secret-store.js';
import { databaseEngines } from '../harness/engines.js';
import { secretBackends, type BackendUnderTest } from './secret-backends.js';

const variants = secretBackends.flatMap((backend) =>
  databaseEngines.map((engine) => ({ name: `${backend.name} on ${engine.name}`, backend, engine })),
);

let environments = 0;
/** A fresh environment of organization acme, so the tests of one variant never see each other's maps. */
function freshScope(): SecretScope {
  environments += 1;
  return { organizationId: 'acme', environment: `env-${environments}` };
}

describe.each(variants)('the $name secrets backend', ({ backend, engine }) => {
  let db: Db;
  let disposeDb: () => Promise<void>;
  let opened: BackendUnderTest;
  let store: SecretStore;
  beforeAll(async () => {
    ({ db, dispose: disposeDb } = await engine.open());
    opened = await backend.open(db);
    store = opened.replica();
  });
  afterAll(async () => {
    await opened.dispose();
    await disposeDb();
  });

  it('reads back what it stored, and nothing of another environment or organization', async () => {
    const scope = freshScope();
    expect(await store.put(scope, 'API_KEY', 'k-123')).toEqual({ created: true });
    expect(await store.read(scope, 'API_KEY')).toBe('k-123');
    expect(await store.read({ ...scope, environment: 'elsewhere' }, 'API_KEY')).toBeUndefined();
    expect(await store.read({ ...scope, organizationId: 'globex' }, 'API_KEY')).toBeUndefined();
    expect(await opened.storedMap(scope)).toEqual({ API_KEY: 'k-123' });
  });

  it('replaces a value and says the name was not new', async () => {
    const scope = freshScope();
    await store.put(scope, 'TOKEN', 'first');
    expect(await store.put(scope, 'TOKEN', 'second')).toEqual({ created: false });
    expect(await store.put(scope, 'TOKEN', 'second')).toEqual({ created: false });
    expect(await store.read(scope, 'TOKEN')).toBe('second');
    expect(await opened.storedMap(scope)).toEqual({ TOKEN: 'second' });
  });

  it('keeps every name when 50 writers put distinct names to one environment at once', async () => {
    const scope = freshScope();
    const names = Array.from({ length: 50 }, (_, i) => `SECRET_${i}`);
    const other = opened.replica();
    await Promise.all(
      names.map((name, i) => (i % 2 === 0 ? store : other).put(scope, name, `value-${name}`)),
    );
    const stored = await opened.storedMap(scope);
    expect(Object.keys(stored ?? {}).sort()).toEqual([...names].sort());
    for (const name of names) expect(await store.read(scope, name)).toBe(`value-${name}`);
  });

  it('refuses with 413 a write that would take the map past 64 KiB, and leaves the stored map as it was', async () => {
    const scope = freshScope();
    for (let i = 0; i < 6; i += 1) await store.put(scope, `BLOB_${i}`, 'x'.repeat(10 * 1024));
    const before = await opened.storedMap(scope);

    await expect(store.put(scope, 'ONE_MORE', 'y'.repeat(10 * 1024))).rejects.toThrow(PayloadTooLargeError);
    await expect(store.put(scope, 'HUGE', 'z'.repeat(70 * 1024))).rejects.toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/at most 65536 bytes \(64 KiB\)$/) as unknown,
    });
    expect(await opened.storedMap(scope)).toEqual(before);
    expect(await store.read(scope, 'ONE_MORE')).toBeUndefined();
  });

  it('removes a name, and removes the stored map with its last name', async () => {
    const scope = freshScope();
    await store.put(scope, 'A', '1');
    await store.put(scope, 'B', '2');
    expect(await store.remove(scope, 'A')).toBe(true);
    expect(await opened.storedMap(scope)).toEqual({ B: '2' });
    expect(await store.remove(scope, 'B')).toBe(true);
    expect(await opened.storedMap(scope)).toBeUndefined();
    expect(await store.remove(scope, 'B')).toBe(false);
    expect(await store.read(scope, 'B')).toBeUndefined();
  });

  it('treats names such as __proto__ and constructor as ordinary names', async () => {
    const scope = freshScope();
    expect(await store.read(scope, 'constructor')).toBeUndefined();
    expect(await store.put(scope, '__proto__', 'p')).toEqual({ created: true });
    expect(await store.put(scope, 'constructor', 'c')).toEqual({ created: true });
    expect(await store.read(scope, '__proto__')).toBe('p');
    expect(Object.entries((await opened.storedMap(scope)) ?? {}).sort()).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
    ]);
  });

  it('keeps values byte for byte: quotes, newlines, unicode and the empty string', async () => {
    const scope = freshScope();
    const values = { QUOTED: '"a\\b"', LINES: 'one\ntwo\r\n', EMOJI: 'clé 🔑', EMPTY: '' };
    for (const [name, value] of Object.entries(values)) await store.put(scope, name, value);
    for (const [name, value] of Object.entries(values)) expect(await store.read(scope, name)).toBe(value);
  });
});
