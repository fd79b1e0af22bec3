// For every operation of the hub's own OpenAPI document: generated malformed requests (hostile path parameters,
// query strings, bodies, content types and codings, oversized headers) sent with a valid admin key never get a
// 5xx, and every 4xx carries the error body. The seed is fixed so a failure replays; MALFORMED_SEED picks another
// and MALFORMED_RUNS runs more (or fewer) requests per operation.
import { request } from 'undici';
import { afterAll, describe, expect } from 'vitest';
import { it } from '@fast-check/vitest';
import { startTestHub } from '../harness/hub.js';
import { malformedRequestsFor, type MalformedRequest } from './malformed-arbitraries.js';
import type { OpenApiDocument, OpenApiOperation } from './openapi-arbitraries.js';

const seed = Number(process.env.MALFORMED_SEED ?? 1_242);
const runsPerOperation = Number(process.env.MALFORMED_RUNS ?? 30);

const hub = await startTestHub({
  slack: {
    clientId: 'client-id',
    clientSecret: 'client-secret',
    signingSecret: 'signing-secret',
    apiUrl: 'http://127.0.0.1:9/api',
    authorizeUrl: 'http://127.0.0.1:9/oauth/v2/authorize',
    publicUrl: 'http://meerkat.example',
  },
});
afterAll(() => hub.close());
const document = (await (await hub.request('GET', '/openapi.json', { as: null })).json()) as OpenApiDocument;

const operations = Object.entries(document.paths).flatMap(([template, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    method: method.toUpperCase(),
    template,
    operation,
  })),
);

async function send(malformed: MalformedRequest) {
  const answer = await request(hub.url + malformed.target, {
    method: malformed.method as 'GET',
    headers: { ...malformed.headers, authorization: `Bearer ${hub.keys.acmeAdmin}` },
    ...(malformed.body === undefined ? {} : { body: malformed.body }),
  });
  return {
    status: answer.statusCode,
    contentType: String(answer.headers['content-type'] ?? ''),
    text: await answer.body.text(),
  };
}

/** A 4xx is the error body, except an HTML page where the operation documents one (the OAuth browser pages). */
function expectErrorBody(operation: OpenApiOperation, answer: Awaited<ReturnType<typeof send>>) {
  const documented = operation.responses[String(answer.status)]?.content ?? {};
  if (answer.contentType.startsWith('text/html') && 'text/html' in documented) return;
  expect(answer.contentType, answer.text).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(typeof body.error, answer.text).toBe('string');
  if (answer.status === 401) {
    expect(body.statusCode, answer.text).toBe(401);
    return;
  }
  expect(typeof body.code, answer.text).toBe('string');
  if (body.code === 'validation_failed') expect(Array.isArray(body.details), answer.text).toBe(true);
}

describe('malformed requests to every operation of /openapi.json', () => {
  it('finds the operations in the served document', () => {
    expect(operations.length).toBeGreaterThan(30);
  });

  for (const { method, template, operation } of operations) {
    it.prop([malformedRequestsFor(method, template, operation, document)], {
      numRuns: runsPerOperation,
      seed,
    })(`${method} ${template} answers below 500, with the error body on a 4xx`, async (malformed) => {
      const answer = await send(malformed);
      expect(answer.status, `${answer.status} ${answer.text.slice(0, 500)}`).toBeLessThan(500);
      if (answer.status >= 400) expectErrorBody(operation, answer);
    });
  }
});
