import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { jsonColumn } from '../../hub/src/db/json-column.js';

const smtpConnection = {
  provider: 'cloud',
  authMethod: 'smtp',
  credentials: { host: 'smtp.example.com', port: 587, user: 'mailer', password: 'hunter2-very-secret' },
};

describe('the hub HTTP foundation', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.close());

  it('answers GET / without a token with the status and version', async () => {
    const res = await hub.request('GET', '/', { as: null });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; version: string };
    expect(body.status).toBe('ok');
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.keys(body).sort()).toEqual(['status', 'version']);
  });

  it('answers a protected route without a token with exactly the 401 body', async () => {
    const res = await hub.request('GET', '/connections', { as: null });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'authorization header is missing',
    });
  });

  it('answers an unknown key and a non-bearer header with the 401 body', async () => {
    for (const [authorization, message] of [
      ['Bearer mk_not-a-key', 'API key is not known'],
      ['Basic dXNlcjpwYXNz', 'authorization header is invalid'],
      ['Bearer', 'authorization header is invalid'],
    ] as const) {
      const res = await hub.request('GET', '/connections', { as: null, headers: { authorization } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message });
    }
  });

  it('lets a key reach a protected route', async () => {
    const res = await hub.request('GET', '/connections', { as: 'acmeViewer' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: [], total: 0, limit: 20, offset: 0 });
  });

  it('answers a viewer’s write with 403 and stores nothing', async () => {
    const res = await hub.request('POST', '/connections', { as: 'acmeViewer', body: smtpConnection });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'role viewer may not write connections', code: 'forbidden' });
    expect(await hub.db.selectFrom('connections').selectAll().execute()).toHaveLength(0);
  });

  it('answers another organization’s resource with 404, as if it did not exist', async () => {
    const created = await hub.request('POST', '/connections', { as: 'acmeAdmin', body: smtpConnection });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string } };

    const theirs = await hub.request('GET', `/connections/${data.id}`, { as: 'globexAdmin' });
    const missing = await hub.request('GET', '/connections/con_does-not-exist', { as: 'globexAdmin' });
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual({ error: `connection ${data.id} not found`, code: 'not_found' });
    expect(missing.status).toBe(404);

    const deleteTheirs = await hub.request('DELETE', `/connections/${data.id}`, { as: 'globexAdmin' });
    expect(deleteTheirs.status).toBe(404);
    const list = await hub.request('GET', '/connections', { as: 'globexAdmin' });
    expect(await list.json()).toMatchObject({ data: [], total: 0 });
    expect(await hub.db.selectFrom('connections').select('id').execute()).toEqual([{ id: data.id }]);
  });

  it('answers a 2 MiB body with 413', async () => {
    const body = JSON.stringify({ ...smtpConnection, metadata: { blob: 'x'.repeat(2 * 1024 * 1024) } });
    const res = await hub.request('POST', '/connections', { body });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: 'request body is larger than 1 MiB',
      code: 'payload_too_large',
    });
  });

  it('answers malformed JSON with 400 validation_failed', async () => {
    const res = await hub.request('POST', '/connections', { body: '{"provider": "cloud",' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'request body is not valid JSON',
      code: 'validation_failed',
      details: [{ path: '', message: 'request body is not valid JSON' }],
    });
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await hub.request('POST', '/connections', {
      body: 'provider=cloud',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('names every failing field of an invalid body', async () => {
    const res = await hub.request('POST', '/connections', {
      body: { provider: 'cloud', authMethod: 'smtp', credentials: { host: '', port: 70000 }, colour: 'red' },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; details: Array<{ path: string }> };
    expect(body.code).toBe('validation_failed');
    expect(body.details.map((d) => d.path).sort()).toEqual([
      'colour',
      'credentials.host',
      'credentials.port',
    ]);
  });

  it('refuses an out-of-range page instead of clamping it', async () => {
    const res = await hub.request('GET', '/connections?limit=500');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'validation_failed', details: [{ path: 'limit' }] });
  });

  it('answers an unknown route with 404 and a wrong method with 405 and Allow', async () => {
    const unknown = await hub.request('GET', '/nothing-here');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'not_found' });
    const wrongMethod = await hub.request('PUT', '/connections', { body: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
  });

  it('never returns stored credentials and keeps them encrypted at rest', async () => {
    const res = await hub.request('POST', '/connections', { body: smtpConnection });
    const text = await res.text();
    expect(text).not.toContain('hunter2-very-secret');
    expect(JSON.parse(text)).toMatchObject({ data: { hasCredentials: true, authMethod: 'smtp' } });
    const rows = await hub.db.selectFrom('connections').select('credentials_encrypted').execute();
    for (const row of rows) expect(row.credentials_encrypted).not.toContain('hunter2');
  });

  it('answers deleting a connection an integration still uses with 409 and keeps it', async () => {
    const created = await hub.request('POST', '/connections', { body: smtpConnection });
    const { data } = (await created.json()) as { data: { id: string } };
    await hub.db
      .insertInto('integrations')
      .values({
        organization_id: 'acme',
        id: 'int_mail',
        environment: 'default',
        name: 'mail',
        category: 'notifications',
        provider: 'cloud',
        provider_type: 'email',
        config: jsonColumn({ providerType: 'email', fromAddress: 'alerts@example.com' }),
        credentials_encrypted: null,
        connection_id: data.id,
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute();
    const res = await hub.request('DELETE', `/connections/${data.id}`);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: `connection ${data.id} is used by an integration; delete the integration first`,
      code: 'conflict',
    });
    expect((await hub.request('GET', `/connections/${data.id}`)).status).toBe(200);
  });

  it('uses the sample connection body as documented', async () => {
    const sample = readFileSync(
      new URL('../../config/samples/connection-smtp.json', import.meta.url),
      'utf8',
    );
    const res = await hub.request('POST', '/connections', { body: sample });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      data: { hasCredentials: true, metadata: { owner: 'platform-team' } },
    });
  });

  it('echoes a well-formed request id and makes one otherwise', async () => {
    const echoed = await hub.request('GET', '/', { as: null, headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const made = await hub.request('GET', '/', {
      as: null,
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports ready when the database and Redis answer, and Redis may not evict keys', async () => {
    const res = await hub.request('GET', '/readyz', { as: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', redis: 'ok', redis_eviction_policy: 'ok' },
    });
  });

  it('serves an OpenAPI 3.1 document', async () => {
    const res = await hub.request('GET', '/openapi.json', { as: null });
    const document = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/', '/connections', '/connections/{id}']),
    );
  });
});

describe('readiness when Redis is down', () => {
  // Issue 23: the API serves reads and writes without Redis, so Redis trouble must not take every hub out of
  // its Service; it is reported in `checks` instead.
  it('stays ready and reports Redis in its checks', async () => {
    const hub = await startTestHub({ redisUrl: 'redis://127.0.0.1:1' });
    try {
      const res = await hub.request('GET', '/readyz', { as: null });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).toBe('ready');
      expect(body.checks.database).toBe('ok');
      expect(body.checks.redis).not.toBe('ok');
    } finally {
      await hub.close();
    }
  });
});
