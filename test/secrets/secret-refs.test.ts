import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialCipher, generateCredentialKey } from '../../hub/src/crypto/credential-cipher.js';
import { openMemoryDatabase, type Db } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrator.js';
import { ValidationError } from '../../hub/src/http/errors.js';
import { createLocalSecretStore } from '../../hub/src/secrets/local-secret-store.js';
import {
  SecretFieldError,
  SecretNotFoundError,
  SecretVersionsUnsupportedError,
} from '../../hub/src/secrets/secret-errors.js';
import { redactSecretValues, resolveSecretRefs, type JsonValue } from '../../hub/src/secrets/secret-refs.js';
import type { SecretReader, SecretStore } from '../../hub/src/secrets/secret-store.js';

const production = { organizationId: 'acme', environment: 'production' };

describe('resolving $secret references', () => {
  let db: Db;
  let store: SecretStore;
  beforeAll(async () => {
    db = openMemoryDatabase();
    await migrateToLatest(db);
    store = createLocalSecretStore({ db, cipher: createCredentialCipher(generateCredentialKey()) });
    await store.put(production, 'API_TOKEN', 'tok-9f8e7d');
    await store.put(production, 'DB', '{"user":"probe","password":"pw-Zq1!","port":5432,"tls":{"on":true}}');
    await store.put(production, 'NOT_JSON', 'hunter2-plain');
    await store.put({ ...production, environment: 'staging' }, 'STAGING_ONLY', 'staging-value');
  });
  afterAll(() => db.destroy());

  const resolve = (value: JsonValue, reader: SecretReader = store) =>
    resolveSecretRefs(value, { store: reader, ...production });

  it('replaces references anywhere in a document and leaves everything else as it was', async () => {
    const body: JsonValue[] = [
      { password: { $secret: { ref: 'DB', field: 'password' } } },
      3,
      null,
      true,
      { nested: { a: 'b' } },
    ];
    const node = {
      id: 'login',
      method: 'POST',
      base: 'https://api.example.com',
      path: { $secret: { ref: 'API_TOKEN' } },
      headers: { authorization: { $secret: { ref: 'API_TOKEN', version: 'latest' } }, accept: 'json' },
      body,
    };
    const { value, secretValues } = await resolve(node);
    expect(value).toEqual({
      ...node,
      path: 'tok-9f8e7d',
      headers: { authorization: 'tok-9f8e7d', accept: 'json' },
      body: [{ password: 'pw-Zq1!' }, 3, null, true, { nested: { a: 'b' } }],
    });
    expect(secretValues).toEqual(expect.arrayContaining(['tok-9f8e7d', 'pw-Zq1!']));
  });

  it('reads each secret once however often it is referenced', async () => {
    const reads: string[] = [];
    const counting: SecretReader = {
      read: (scope, name, version) => {
        reads.push(name);
        return store.read(scope, name, version);
      },
    };
    const ref = { $secret: { ref: 'API_TOKEN' } };
    await resolve({ a: ref, b: [ref, ref], c: { d: ref } }, counting);
    expect(reads).toEqual(['API_TOKEN']);
  });

  it('turns a picked number or boolean into its text', async () => {
    const { value } = await resolve([{ $secret: { ref: 'DB', field: 'port' } }]);
    expect(value).toEqual(['5432']);
  });

  it('fails with "secret NAME not found in ENVIRONMENT" for a secret of another environment', async () => {
    const failure = resolve({ header: { $secret: { ref: 'STAGING_ONLY' } } });
    await expect(failure).rejects.toThrow(SecretNotFoundError);
    await expect(failure).rejects.toThrow(/^secret STAGING_ONLY not found in production$/);
  });

  it('says why a field cannot be picked without quoting the value', async () => {
    const cases: Array<[string, string, string]> = [
      ['NOT_JSON', 'password', 'the value is not JSON'],
      ['DB', 'missing', 'the object has no such key'],
      ['DB', 'tls', 'its value is not a string, number or boolean'],
    ];
    for (const [ref, field, reason] of cases) {
      const error = await resolve({ $secret: { ref, field } }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SecretFieldError);
      expect((error as Error).message).toBe(`secret ${ref} in production has no field ${field}: ${reason}`);
      expect(JSON.stringify(error)).not.toMatch(/hunter2|pw-Zq1|probe/);
    }
  });

  it('refuses a malformed reference, naming where it is', async () => {
    const document = { nodes: [{ headers: { 'x-key': { $secret: { ref: '9-not-a-name' } } } }] };
    const error = await resolve(document).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details[0]?.path).toBe('nodes[0].headers.x-key.$secret.ref');
  });

  it('passes a pinned version to the store, which the local backend refuses', async () => {
    await expect(resolve({ $secret: { ref: 'API_TOKEN', version: '3' } })).rejects.toThrow(
      SecretVersionsUnsupportedError,
    );
  });
});

describe('redacting secret values from text', () => {
  it('replaces each value as is, URL-encoded and JSON-escaped', () => {
    const value = 'p@ss word"/x';
    const text = [
      `login failed for ${value}`,
      `GET https://h/?k=${encodeURIComponent(value)}`,
      `body ${JSON.stringify({ password: value })}`,
    ].join('\n');
    const redacted = redactSecretValues(text, [value]);
    expect(redacted).toBe(
      ['login failed for [secret]', 'GET https://h/?k=[secret]', 'body {"password":"[secret]"}'].join('\n'),
    );
  });

  it('hides a value that contains another one whole, and treats regex characters literally', () => {
    expect(redactSecretValues('key=abc.def*', ['abc', 'abc.def*'])).toBe('key=[secret]');
    expect(redactSecretValues('a.c and abc', ['a.c'])).toBe('[secret] and abc');
  });

  it('leaves text alone when there is nothing to hide', () => {
    expect(redactSecretValues('nothing secret here', [])).toBe('nothing secret here');
    expect(redactSecretValues('an empty value hides nothing', [''])).toBe('an empty value hides nothing');
  });
});
