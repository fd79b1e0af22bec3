// The /secrets endpoints over HTTP, on both backends, with the hub's log captured to prove no value reaches it.
import { status } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGcpSecretStore } from '../../hub/src/secrets/gcp-secret-store.js';
import { defaultRetryPolicy } from '../../hub/src/secrets/gcp-call.js';
import { capturedLog } from '../harness/captured-log.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { FakeSecretManager } from './fake-secret-manager.js';
import { quickRetries } from './secret-backends.js';

interface RunningHub {
  hub: TestHub;
  secretManager?: FakeSecretManager;
  stop(): Promise<void>;
}

async function startHub(backend: 'local' | 'gcp', log: Logger): Promise<RunningHub> {
  if (backend === 'local') {
    const hub = await startTestHub({ log, redisUrl: null });
    return { hub, stop: () => hub.close() };
  }
  const secretManager = await FakeSecretManager.start();
  const client = secretManager.client();
  const project = secretManager.project;
  const hub = await startTestHub({
    log,
    redisUrl: null,
    secrets: (db) => createGcpSecretStore({ db, client, project, log, retry: quickRetries }),
  });
  return {
    hub,
    secretManager,
    async stop() {
      await hub.close();
      await client.close();
      await secretManager.close();
    },
  };
}

const json = async (res: Response) => ({ status: res.status, body: await res.json() });

describe.each(['local', 'gcp'] as const)('the /secrets endpoints on the %s backend', (backend) => {
  const capture = capturedLog();
  let running: RunningHub;
  let hub: TestHub;
  beforeAll(async () => {
    running = await startHub(backend, capture.log);
    hub = running.hub;
  });
  afterAll(() => running.stop());

  const resolve = (
    name: string,
    options: { as?: 'acmeService' | 'acmeAdmin' | 'acmeEditor'; org?: string } = {},
  ) =>
    hub.request('POST', '/secrets/resolve', {
      as: options.as ?? 'acmeService',
      body: { name, organizationId: options.org ?? 'acme' },
    });

  it('creates a secret with 201, replaces it with 200, and never answers with the value', async () => {
    const created = await hub.request('PUT', '/secrets/STRIPE_KEY', {
      as: 'acmeEditor',
      body: { value: 'sk_1' },
    });
    expect(await json(created)).toEqual({
      status: 201,
      body: { data: { name: 'STRIPE_KEY', environment: 'default' } },
    });
    const replaced = await hub.request('PUT', '/secrets/STRIPE_KEY', {
      as: 'acmeEditor',
      body: { value: 'sk_2' },
    });
    expect(await json(replaced)).toEqual({
      status: 200,
      body: { data: { name: 'STRIPE_KEY', environment: 'default' } },
    });
    const read = await hub.request('GET', '/secrets/STRIPE_KEY', { as: 'acmeViewer' });
    expect(await json(read)).toEqual({
      status: 200,
      body: { data: { name: 'STRIPE_KEY', environment: 'default' } },
    });
  });

  it('keeps environments apart, "default" when none is named', async () => {
    await hub.request('PUT', '/secrets/DB_URL', {
      body: { value: 'postgres://prod', environment: 'production' },
    });
    expect((await hub.request('GET', '/secrets/DB_URL?environment=production')).status).toBe(200);
    const elsewhere = await hub.request('GET', '/secrets/DB_URL');
    expect(await json(elsewhere)).toEqual({
      status: 404,
      body: { error: 'secret DB_URL not found in default', code: 'not_found' },
    });
  });

  it('deletes a secret with 204, after which it is gone', async () => {
    await hub.request('PUT', '/secrets/TEMP', { body: { value: 't' } });
    expect((await hub.request('DELETE', '/secrets/TEMP', { as: 'acmeEditor' })).status).toBe(204);
    expect((await hub.request('GET', '/secrets/TEMP')).status).toBe(404);
    expect(await json(await hub.request('DELETE', '/secrets/TEMP'))).toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    });
  });

  it('resolves a value for a service of the same organization, and never for an admin', async () => {
    await hub.request('PUT', '/secrets/RUNNER_TOKEN', { body: { value: 'rt-42' } });
    const body = { data: { name: 'RUNNER_TOKEN', environment: 'default', value: 'rt-42' } };
    expect(await json(await resolve('RUNNER_TOKEN'))).toEqual({ status: 200, body });
    expect(await json(await resolve('RUNNER_TOKEN', { as: 'acmeAdmin' }))).toEqual({
      status: 403,
      body: { error: 'role admin may not resolve secrets', code: 'forbidden' },
    });
  });

  it('answers a resolve for another organization exactly like a missing secret', async () => {
    await hub.request('PUT', '/secrets/SHARED_NAME', { body: { value: 'acme-only' } });
    const theirs = await json(await resolve('SHARED_NAME', { org: 'globex' }));
    const missing = await json(await resolve('NO_SUCH_SECRET', { org: 'globex' }));
    expect(theirs).toEqual({
      status: 404,
      body: { error: 'secret SHARED_NAME not found in default', code: 'not_found' },
    });
    expect(missing.status).toBe(404);
    expect((await hub.request('GET', '/secrets/SHARED_NAME', { as: 'globexAdmin' })).status).toBe(404);
    expect((await hub.request('DELETE', '/secrets/SHARED_NAME', { as: 'globexAdmin' })).status).toBe(404);
    expect((await resolve('SHARED_NAME')).status).toBe(200);
  });

  it('answers 403 to an editor who resolves and to a viewer who writes', async () => {
    expect(await json(await resolve('RUNNER_TOKEN', { as: 'acmeEditor' }))).toEqual({
      status: 403,
      body: { error: 'role editor may not resolve secrets', code: 'forbidden' },
    });
    const write = await hub.request('PUT', '/secrets/X', { as: 'acmeViewer', body: { value: 'v' } });
    expect(write.status).toBe(403);
    expect((await hub.request('DELETE', '/secrets/STRIPE_KEY', { as: 'acmeService' })).status).toBe(403);
  });

  it('answers 400 naming the field for a bad name, an unknown field or an unknown query parameter', async () => {
    const badName = await json(await hub.request('PUT', '/secrets/9lives', { body: { value: 'v' } }));
    expect(badName).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', details: [{ path: 'name' }] },
    });
    const unknownField = await json(
      await hub.request('PUT', '/secrets/OK', { body: { value: 'v', colour: 'red' } }),
    );
    expect(unknownField).toMatchObject({ status: 400, body: { details: [{ path: 'colour' }] } });
    const unknownQuery = await json(await hub.request('GET', '/secrets/OK?enviroment=prod'));
    expect(unknownQuery).toMatchObject({ status: 400, body: { details: [{ path: 'enviroment' }] } });
    const badEnvironment = await json(
      await hub.request('PUT', '/secrets/OK', { body: { value: 'v', environment: '' } }),
    );
    expect(badEnvironment).toMatchObject({ status: 400, body: { details: [{ path: 'environment' }] } });
  });

  it('leaves all 50 names readable after 50 concurrent PUTs to one environment', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `CONCURRENT_${i}`);
    const answers = await Promise.all(
      names.map((name) =>
        hub.request('PUT', `/secrets/${name}`, { body: { value: `v-${name}`, environment: 'load' } }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(names.map(() => 201));
    for (const name of names) {
      const res = await hub.request('POST', '/secrets/resolve', {
        as: 'acmeService',
        body: { name, environment: 'load', organizationId: 'acme' },
      });
      expect(await json(res)).toMatchObject({ status: 200, body: { data: { value: `v-${name}` } } });
    }
  });

  it('answers a 70 KiB map with 413 and leaves the stored map unchanged', async () => {
    await hub.request('PUT', '/secrets/SMALL', { body: { value: 'kept', environment: 'big' } });
    const res = await hub.request('PUT', '/secrets/HUGE', {
      body: { value: 'x'.repeat(70 * 1024), environment: 'big' },
    });
    expect(await json(res)).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
    const kept = await hub.request('POST', '/secrets/resolve', {
      as: 'acmeService',
      body: { name: 'SMALL', environment: 'big', organizationId: 'acme' },
    });
    expect(await json(kept)).toMatchObject({ status: 200, body: { data: { value: 'kept' } } });
    expect((await hub.request('GET', '/secrets/HUGE?environment=big')).status).toBe(404);
  });

  it('answers POST on a secret with 405, and GET /secrets/resolve reads the secret named "resolve"', async () => {
    const post = await hub.request('POST', '/secrets/STRIPE_KEY', { body: { value: 'v' } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, PUT, DELETE');
    expect(await json(await hub.request('GET', '/secrets/resolve'))).toMatchObject({
      status: 404,
      body: { error: 'secret resolve not found in default' },
    });
  });

  it('logs requests to secrets without any trace of their values', async () => {
    const value = 'never-log-me-7c1d';
    await hub.request('PUT', '/secrets/LOGGED', { body: { value } });
    await hub.request('GET', '/secrets/LOGGED');
    await resolve('LOGGED');
    await hub.request('PUT', '/secrets/LOGGED', { body: { value: `${value}${'x'.repeat(70 * 1024)}` } });
    await hub.request('PUT', '/secrets/9bad', { body: { value } });
    await hub.request('PUT', '/secrets/LOGGED', { as: 'acmeViewer', body: { value } });
    expect(capture.text()).toContain('/secrets/LOGGED');
    expect(capture.text()).not.toContain('never-log-me');
  });
});

describe('the /secrets endpoints when Secret Manager is down', () => {
  const capture = capturedLog();
  let running: RunningHub;
  beforeAll(async () => {
    running = await startHub('gcp', capture.log);
  });
  afterAll(() => running.stop());

  it('answers 503 after retrying, and logs the failure without the value', async () => {
    const secretManager = running.secretManager as FakeSecretManager;
    secretManager.failNext('AccessSecretVersion', status.UNAVAILABLE, defaultRetryPolicy.attempts);
    const res = await running.hub.request('PUT', '/secrets/OUTAGE', { body: { value: 'outage-value-55' } });
    expect(await json(res)).toEqual({
      status: 503,
      body: {
        error: 'Secret Manager did not read the secrets of default (UNAVAILABLE) after 4 attempts',
        code: 'unavailable',
      },
    });
    expect(capture.text()).toContain('Secret Manager failed to read the secrets of default');
    expect(capture.text()).not.toContain('outage-value-55');
  });
});
