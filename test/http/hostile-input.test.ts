import { createServer } from 'node:http';
import { connect } from 'node:net';
import { text } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { sql } from 'kysely';
import { pino } from 'pino';
import { pinoHttp } from 'pino-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMiddleware } from '../../hub/src/http/error-middleware.js';
import { listen } from '../../hub/src/http/listen.js';
import { validMonitor } from '../monitors/fixtures.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

interface ErrorBody {
  error: string;
  code: string;
  details?: Array<{ path: string; message: string }>;
}

/** `[[[ ... 1 ... ]]]`, written as text: building it as a value and stringifying it would itself overflow. */
const nestedArrays = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

/** A valid monitor definition as JSON text, with `raw` JSON text in place of one marked value. */
function definitionWith(marked: (definition: ReturnType<typeof validMonitor>) => void, raw: string): string {
  const definition = validMonitor({ notifications: undefined });
  marked(definition);
  return JSON.stringify(definition).replace('"__RAW__"', raw);
}

describe('hostile input: every malformed request is a 4xx with the error body', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.close());

  async function expectError(res: Response, status: number, code: string): Promise<ErrorBody> {
    expect(res.status).toBe(status);
    const body = (await res.json()) as ErrorBody;
    expect(body).toMatchObject({ error: expect.any(String) as string, code });
    return body;
  }

  it('answers an id with invalid percent-encoding (%FF) with 400', async () => {
    for (const path of ['/monitor/%FF', '/runs/%E0%A4%A', '/secrets/%ED%A0%80']) {
      const body = await expectError(await hub.request('GET', path), 400, 'validation_failed');
      expect(body.error).toBe('the path is not valid percent-encoded UTF-8');
      expect(body.details).toHaveLength(1);
    }
  });

  it('answers a NUL in an id, a query value and a body string with 400 naming the field', async () => {
    const inId = await expectError(
      await hub.request('GET', '/connections/con%00x'),
      400,
      'validation_failed',
    );
    expect(inId.details).toEqual([{ path: 'id', message: 'must not contain NUL (\\u0000)' }]);

    const inQuery = await hub.request('GET', '/monitor/by-name?name=a%00b');
    expect((await expectError(inQuery, 400, 'validation_failed')).details?.[0]?.path).toBe('name');

    const inBody = await hub.request('PUT', '/monitor/web-1', {
      body: validMonitor({ notifications: undefined, name: 'check\u0000out' }),
    });
    expect((await expectError(inBody, 400, 'validation_failed')).details).toEqual([
      { path: 'name', message: 'must not contain NUL (\\u0000)' },
    ]);
    expect(await hub.db.selectFrom('monitors').select('id').execute()).toEqual([]);
  });

  it('answers a lone surrogate in a body string or field name with 400 naming the field', async () => {
    const inValue = await hub.request('PUT', '/secrets/API_TOKEN', { body: '{"value":"abc\\ud800"}' });
    expect((await expectError(inValue, 400, 'validation_failed')).details).toEqual([
      { path: 'value', message: 'must not contain an unpaired UTF-16 surrogate' },
    ]);
    const inKey = await hub.request('PUT', '/monitor/web-1', {
      body: definitionWith((d) => (d.nodes[0]!.headers = '__RAW__'), '{"X-\\udc00": "v"}'),
    });
    expect((await expectError(inKey, 400, 'validation_failed')).details?.[0]?.message).toBe(
      'the field name must not contain an unpaired UTF-16 surrogate',
    );
  });

  it('answers 2,000 levels of nesting in a request body with 400 naming the field', async () => {
    const res = await hub.request('PUT', '/monitor/web-1', {
      body: definitionWith((d) => (d.nodes[0]!.body = '__RAW__'), nestedArrays(2000)),
    });
    expect((await expectError(res, 400, 'validation_failed')).details).toEqual([
      { path: 'nodes[0].body', message: 'JSON may nest at most 64 levels of arrays and objects' },
    ]);
  });

  it('answers 2,000 levels of nesting in an assertion’s expected value with 400 naming the field', async () => {
    const res = await hub.request('POST', '/monitor/', {
      body: definitionWith((d) => {
        const assertion = (d.nodes[2]!.assertions as Array<{ predicate: Record<string, unknown> }>)[0]!;
        assertion.predicate.expected = '__RAW__';
      }, nestedArrays(2000)),
    });
    expect((await expectError(res, 400, 'validation_failed')).details).toContainEqual({
      path: 'nodes[2].assertions[0].predicate.expected',
      message: 'JSON may nest at most 64 levels of arrays and objects',
    });
  });

  it('answers 100,000 levels of nesting without overflowing, and takes 64 levels', async () => {
    const deepest = await hub.request('PUT', '/monitor/web-1', {
      body: definitionWith((d) => (d.nodes[0]!.body = '__RAW__'), nestedArrays(100_000)),
    });
    await expectError(deepest, 400, 'validation_failed');
    const allowed = await hub.request('PUT', '/monitor/web-1', {
      body: definitionWith((d) => (d.nodes[0]!.body = '__RAW__'), nestedArrays(64)),
    });
    expect(allowed.status).toBe(201);
  });

  it('answers 100,000 levels of nesting in free-form JSON (connection metadata) with 400 naming the field', async () => {
    const res = await hub.request('POST', '/connections', {
      body: `{"provider":"cloud","authMethod":"smtp","credentials":{"host":"smtp.example.com","port":587},"metadata":{"deep":${nestedArrays(100_000)}}}`,
    });
    expect((await expectError(res, 400, 'validation_failed')).details).toEqual([
      { path: 'metadata', message: 'nests more than 128 levels of arrays and objects' },
    ]);
    expect(await hub.db.selectFrom('connections').select('id').execute()).toEqual([]);
  });

  it('answers an unsupported Content-Encoding with 415 and Accept-Encoding', async () => {
    const res = await hub.request('POST', '/connections', {
      body: '{}',
      headers: { 'content-encoding': 'compress' },
    });
    await expectError(res, 415, 'unsupported_media_type');
    expect(res.headers.get('accept-encoding')).toBe('gzip, deflate, br');
  });

  it('answers a body that does not decode as its Content-Encoding says with 400', async () => {
    const notGzip = await hub.request('POST', '/connections', {
      body: '{"provider":"cloud"}',
      headers: { 'content-encoding': 'gzip' },
    });
    await expectError(notGzip, 400, 'validation_failed');
    const truncated = gzipSync('{"provider":"cloud"}').subarray(0, 15);
    const cut = await fetch(`${hub.url}/connections`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${hub.keys.acmeAdmin}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: truncated,
    });
    await expectError(cut, 400, 'validation_failed');
  });

  it('answers header fields over Node’s limit with 431 and the error body', async () => {
    const res = await hub.request('GET', '/monitor/', { headers: { 'x-padding': 'a'.repeat(20_000) } });
    const body = await expectError(res, 431, 'headers_too_large');
    expect(body.error).toMatch(/exceed \d+ bytes/);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers a request Node’s HTTP parser refuses with 400 and the error body, then closes', async () => {
    const { port } = new URL(hub.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.end('GET /monitor/ HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
    const raw = (await text(socket)).split('\r\n\r\n');
    expect(raw[0]).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw[0]).toMatch(/\r\nConnection: close(\r\n|$)/);
    expect(JSON.parse(raw[1] ?? '')).toEqual({
      error: 'malformed HTTP request',
      code: 'validation_failed',
      details: [{ path: '', message: 'malformed HTTP request' }],
    });
  });

  it('answers text the database refuses (SQLSTATE 22021, 22P05) with 400, should any get past validation', async () => {
    const app = express();
    app.use(pinoHttp({ logger: pino({ level: 'silent' }) }));
    app.get('/text', async () => void (await sql`select ${'a\u0000b'}::text`.execute(hub.db)));
    app.get('/jsonb', async () => void (await sql`select ${'{"a":"\\u0000"}'}::jsonb`.execute(hub.db)));
    app.use(errorMiddleware());
    const server = await listen(createServer(app), 0, '127.0.0.1');
    try {
      for (const path of ['/text', '/jsonb'])
        await expectError(await fetch(server.url + path), 400, 'validation_failed');
    } finally {
      await server.close();
    }
  });
});
