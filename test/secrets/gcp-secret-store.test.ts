// What the gcp backend does to Secret Manager, seen from the fake server's side: the calls it received and the
// state it holds. The behaviour shared with the local backend is in secret-store.test.ts.
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../hub/src/db/database.js';
import { PayloadTooLargeError, UnavailableError } from '../../hub/src/http/errors.js';
import { defaultRetryPolicy } from '../../hub/src/secrets/gcp-call.js';
import { secretIdFor } from '../../hub/src/secrets/gcp-secret-names.js';
import { SecretStoreError, SecretVersionNotFoundError } from '../../hub/src/secrets/secret-errors.js';
import type { SecretScope, SecretStore } from '../../hub/src/secrets/secret-store.js';
import { createSecretService } from '../../hub/src/secrets/secret.service.js';
import { databaseEngines } from '../harness/engines.js';
import type { FakeSecretManager } from './fake-secret-manager.js';
import { secretBackends, type BackendUnderTest } from './secret-backends.js';

const [postgres] = databaseEngines;
const gcp = secretBackends.find((backend) => backend.name === 'gcp');

let environments = 0;
function freshScope(): SecretScope {
  environments += 1;
  return { organizationId: 'acme', environment: `gcp-${environments}` };
}

describe('the gcp secrets backend against a Secret Manager gRPC server', () => {
  let db: Db;
  let disposeDb: () => Promise<void>;
  let backend: BackendUnderTest;
  let secretManager: FakeSecretManager;
  let store: SecretStore;
  beforeAll(async () => {
    if (postgres === undefined || gcp === undefined)
      throw new Error('PostgreSQL and the gcp backend are needed');
    ({ db, dispose: disposeDb } = await postgres.open());
    backend = await gcp.open(db);
    secretManager = backend.secretManager as FakeSecretManager;
    store = backend.replica();
  });
  afterAll(async () => {
    await backend.dispose();
    await disposeDb();
  });

  const callsFor = (scope: SecretScope, method: string) =>
    secretManager.callsOf(method).filter((call) => JSON.stringify(call.request).includes(secretIdFor(scope)));

  it('keeps one labelled secret per organization and environment, whose version holds the JSON map', async () => {
    const scope = { organizationId: 'acme.eu', environment: 'production' };
    await store.put(scope, 'B_TOKEN', 'two');
    await store.put(scope, 'A_KEY', 'one');

    const [create] = callsFor(scope, 'CreateSecret');
    expect(create?.request).toMatchObject({
      parent: 'projects/meerkat-test',
      secretId: expect.stringMatching(/^meerkat_acme-eu_production_[0-9a-f]{16}$/) as unknown,
      secret: {
        replication: { automatic: {} },
        labels: { 'managed-by': 'meerkat' },
        annotations: { 'meerkat-organization': 'acme.eu', 'meerkat-environment': 'production' },
      },
    });
    const payloads = callsFor(scope, 'AddSecretVersion').map((call) =>
      (call.request as { payload: { data: Buffer } }).payload.data.toString('utf8'),
    );
    expect(payloads).toEqual(['{"B_TOKEN":"two"}', '{"A_KEY":"one","B_TOKEN":"two"}']);
  });

  it('gives pairs that read alike distinct, valid secret ids', () => {
    const pairs = [
      ['a.b', 'c'],
      ['a_b', 'c'],
      ['a', 'b.c'],
      ['a-b', 'c'],
      ['x'.repeat(63), 'y'.repeat(63)],
    ] as const;
    const ids = pairs.map(([organizationId, environment]) => secretIdFor({ organizationId, environment }));
    expect(new Set(ids).size).toBe(pairs.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
  });

  it('destroys the older versions after each write, so a replaced value is readable nowhere', async () => {
    const scope = freshScope();
    for (const value of ['v1', 'v2', 'v3']) await store.put(scope, 'PASSWORD', value);
    const versions = secretManager.secret(secretIdFor(scope))?.versions;
    expect(versions?.map((v) => [v.number, v.state, v.payload])).toEqual([
      [1, 'DESTROYED', undefined],
      [2, 'DESTROYED', undefined],
      [3, 'ENABLED', '{"PASSWORD":"v3"}'],
    ]);
    expect(callsFor(scope, 'ListSecretVersions').map((call) => call.request.filter)).toContain(
      'state:ENABLED',
    );
  });

  it('deletes the whole secret when its last name is removed', async () => {
    const scope = freshScope();
    await store.put(scope, 'ONLY', 'x');
    await store.remove(scope, 'ONLY');
    expect(secretManager.secret(secretIdFor(scope))).toBeUndefined();
    expect(callsFor(scope, 'DeleteSecret')).toHaveLength(1);
  });

  it('refuses a 70 KiB value with 413 before any call to Secret Manager', async () => {
    const scope = freshScope();
    const before = secretManager.calls.length;
    const service = createSecretService({ store });
    await expect(
      service.put(scope.organizationId, 'HUGE', {
        environment: scope.environment,
        value: 'x'.repeat(70 * 1024),
      }),
    ).rejects.toThrow(PayloadTooLargeError);
    expect(secretManager.calls.length).toBe(before);
  });

  it('refuses a write that would overflow the map after reading it, and adds no version', async () => {
    const scope = freshScope();
    await store.put(scope, 'BIG', 'x'.repeat(60 * 1024));
    await expect(store.put(scope, 'MORE', 'y'.repeat(8 * 1024))).rejects.toThrow(PayloadTooLargeError);
    expect(callsFor(scope, 'AddSecretVersion')).toHaveLength(1);
    expect(Object.keys(secretManager.latestMap(secretIdFor(scope)) ?? {})).toEqual(['BIG']);
  });

  it('retries UNAVAILABLE, RESOURCE_EXHAUSTED and DEADLINE_EXCEEDED, then succeeds', async () => {
    const scope = freshScope();
    secretManager.failNext('AccessSecretVersion', status.RESOURCE_EXHAUSTED);
    secretManager.failNext('AddSecretVersion', status.UNAVAILABLE, 2);
    secretManager.failNext('CreateSecret', status.DEADLINE_EXCEEDED);
    await store.put(scope, 'FLAKY', 'eventually');
    expect(secretManager.latestMap(secretIdFor(scope))).toEqual({ FLAKY: 'eventually' });
    expect(secretManager.secret(secretIdFor(scope))?.versions).toHaveLength(1);
  });

  it('answers 503 when Secret Manager stays unavailable, and leaves the map as it was', async () => {
    const scope = freshScope();
    await store.put(scope, 'KEEP', 'me');
    secretManager.failNext('AddSecretVersion', status.UNAVAILABLE, defaultRetryPolicy.attempts);
    const failure = store.put(scope, 'LOST', 'never');
    await expect(failure).rejects.toThrow(UnavailableError);
    await expect(failure).rejects.toThrow(
      `Secret Manager did not store the secrets of ${scope.environment} (UNAVAILABLE) after 4 attempts`,
    );
    expect(secretManager.latestMap(secretIdFor(scope))).toEqual({ KEEP: 'me' });
  });

  it('answers a permission error at once with a message that points at the IAM roles', async () => {
    const scope = freshScope();
    secretManager.failNext('AccessSecretVersion', status.PERMISSION_DENIED);
    const failure = store.read(scope, 'ANY');
    await expect(failure).rejects.toThrow(SecretStoreError);
    await expect(failure).rejects.toThrow(/PERMISSION_DENIED.*docs\/secrets\.md/);
    expect(callsFor(scope, 'AccessSecretVersion')).toHaveLength(1);
  });

  it('serves repeated reads from its cache until a write on another replica changes the map', async () => {
    const scope = freshScope();
    const writer = backend.replica();
    const reader = backend.replica();
    await writer.put(scope, 'ROTATED', 'old');
    expect(await reader.read(scope, 'ROTATED')).toBe('old');
    const accesses = callsFor(scope, 'AccessSecretVersion').length;
    expect(await reader.read(scope, 'ROTATED')).toBe('old');
    expect(callsFor(scope, 'AccessSecretVersion')).toHaveLength(accesses);

    await writer.put(scope, 'ROTATED', 'new');
    expect(await reader.read(scope, 'ROTATED')).toBe('new');
  });

  it('reads again once the cache lifetime is over, for maps changed outside the hub', async () => {
    const scope = freshScope();
    let now = Date.parse('2026-03-01T00:00:00Z');
    const reader = backend.replica({ clock: { now: () => new Date(now) } });
    await store.put(scope, 'EDITED', 'by meerkat');
    expect(await reader.read(scope, 'EDITED')).toBe('by meerkat');
    const client = secretManager.client();
    await client.addSecretVersion({
      parent: `projects/${secretManager.project}/secrets/${secretIdFor(scope)}`,
      payload: { data: Buffer.from('{"EDITED":"in the console"}') },
    });
    await client.close();
    expect(await reader.read(scope, 'EDITED')).toBe('by meerkat');
    now += 30_000;
    expect(await reader.read(scope, 'EDITED')).toBe('in the console');
  });

  it('reads a pinned version of the map while it exists, and names the version once it is gone', async () => {
    const scope = freshScope();
    await store.put(scope, 'PINNED', 'first');
    expect(await store.read(scope, 'PINNED', '1')).toBe('first');
    await store.put(scope, 'PINNED', 'second');
    expect(await store.read(scope, 'PINNED', '2')).toBe('second');
    const gone = store.read(scope, 'PINNED', '1');
    await expect(gone).rejects.toThrow(SecretVersionNotFoundError);
    await expect(gone).rejects.toThrow(`secret PINNED version 1 not found in ${scope.environment}`);
  });

  it('refuses to merge into a map whose latest version was disabled outside the hub', async () => {
    const scope = freshScope();
    await store.put(scope, 'A', '1');
    const latest = secretManager.secret(secretIdFor(scope))?.versions.at(-1);
    if (latest !== undefined) latest.state = 'DISABLED';
    await expect(store.put(scope, 'B', '2')).rejects.toThrow(SecretStoreError);
    expect(secretManager.secret(secretIdFor(scope))?.versions).toHaveLength(1);
  });

  it('adopts a secret left without versions by an interrupted write', async () => {
    const scope = freshScope();
    const client = secretManager.client();
    await client.createSecret({
      parent: `projects/${secretManager.project}`,
      secretId: secretIdFor(scope),
      secret: { replication: { automatic: {} } },
    });
    await client.close();
    await store.put(scope, 'AFTER_CRASH', 'ok');
    expect(secretManager.latestMap(secretIdFor(scope))).toEqual({ AFTER_CRASH: 'ok' });
  });

  it('still stores a value when older versions cannot be destroyed, and destroys them on the next write', async () => {
    const scope = freshScope();
    await store.put(scope, 'A', '1');
    secretManager.failNext('ListSecretVersions', status.PERMISSION_DENIED);
    await store.put(scope, 'B', '2');
    const states = () => secretManager.secret(secretIdFor(scope))?.versions.map((v) => v.state);
    expect(states()).toEqual(['ENABLED', 'ENABLED']);
    await store.put(scope, 'C', '3');
    expect(states()).toEqual(['DESTROYED', 'DESTROYED', 'ENABLED']);
  });
});
