// Malformed requests for one OpenAPI operation: hostile path parameters, query strings, bodies, content types,
// content codings and header sizes. Bodies start from the operation's own schema and get one hostile value planted.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { fc } from '@fast-check/vitest';
import { valueFor, type OpenApiDocument, type OpenApiOperation } from './openapi-arbitraries.js';

export interface MalformedRequest {
  method: string;
  /** Path and query, percent-encoded (or deliberately not). */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const clip = (text: string) => (text.length > 160 ? `${text.slice(0, 160)}... (${text.length} chars)` : text);

/** How fast-check prints a counterexample: long padding and bodies cut short, so the cause stays readable. */
function described(request: MalformedRequest): MalformedRequest {
  return Object.assign(request, {
    [fc.toStringMethod]: () =>
      JSON.stringify({
        request: `${request.method} ${clip(request.target)}`,
        headers: Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [name, clip(value)]),
        ),
        ...(request.body === undefined ? {} : { body: clip(request.body.toString('latin1')) }),
      }),
  });
}

/** Every byte but the unreserved ones as %XX: the path and query carry exactly the text's UTF-8 bytes. */
const percentEncode = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

// %ED%A0%80 is a lone surrogate written as UTF-8 bytes (not valid UTF-8); %E0%A4%A is cut short.
const hostileEncoded = fc.oneof(
  fc.constantFrom(
    '%FF',
    '%00',
    'a%00b',
    '%ED%A0%80',
    '%ED%BF%BF',
    '%C0%AF',
    '%E0%A4%A',
    '%',
    '%zz',
    '%2F',
    '..',
  ),
  fc.string({ unit: 'binary', maxLength: 24 }).map(percentEncode),
  fc.integer({ min: 65, max: 20_000 }).map((length) => 'a'.repeat(length)),
  fc.stringMatching(/^[A-Za-z0-9_.~-]{1,70}$/),
);

const queryValue = fc.oneof(
  hostileEncoded,
  fc.constantFrom('', '-1', '0', '1e309', 'NaN', '101', 'true', '[]', 'latest', 'DESC'),
);

function queryFor(operation: OpenApiOperation): fc.Arbitrary<string> {
  const declared = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const key = fc.oneof(
    ...(declared.length > 0 ? [fc.constantFrom(...declared)] : []),
    fc.constantFrom('unknown', '__proto__', 'constructor', 'a[b]', '%00', '%FF', 'limit'),
  );
  return fc
    .array(fc.tuple(key, queryValue), { maxLength: 4 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));
}

function pathFor(template: string): fc.Arbitrary<string> {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  return fc
    .tuple(...names.map(() => hostileEncoded))
    .map((values) =>
      names.reduce((path, name, i) => path.replace(`{${name}}`, values[i] as string), template),
    );
}

const DEEP = '__DEEP__';
const hostileValue = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfffy', 'a\r\nX-Injected: 1', '\u0007', 'CONNECT', ''),
  fc.constantFrom(-1, 0, 1e308, 2 ** 53 + 1, 3.5, null, true, [], {}),
  fc.constant(DEEP),
  fc.integer({ min: 1_000, max: 300_000 }).map((length) => 'x'.repeat(length)),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const hostileKey = fc.constantFrom(
  '\u0000',
  '\ud800',
  '__proto__',
  'constructor',
  'X Bad',
  'Transfer-Encoding',
);

/** Places `hostile` at the `choice`-th spot of `value` (a field, an item or a new key), on a copy. */
function plant(value: unknown, choice: number, hostile: unknown, asKey: string | undefined): unknown {
  const copy = JSON.parse(JSON.stringify(value ?? null)) as unknown;
  const containers: Array<Record<string, unknown> | unknown[]> = [];
  const pending = [copy];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next === null || typeof next !== 'object') continue;
    containers.push(next as Record<string, unknown>);
    pending.push(...Object.values(next as Record<string, unknown>));
  }
  const container = containers[choice % Math.max(containers.length, 1)];
  if (container === undefined) return hostile;
  const keys = Object.keys(container);
  const key = asKey ?? keys[choice % Math.max(keys.length, 1)] ?? 'planted';
  (container as Record<string, unknown>)[key] = hostile;
  return copy;
}

/** `[[...1...]]` or `{"a":{...}}` nesting `levels` deep, written as text: stringifying such a value would overflow. */
const nestingText = (levels: number, arrays: boolean) =>
  arrays ? `${'['.repeat(levels)}1${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

function bodyTextFor(operation: OpenApiOperation, document: OpenApiDocument): fc.Arbitrary<string> {
  const schema = operation.requestBody?.content['application/json']?.schema ?? {};
  const deep = fc.tuple(fc.constantFrom(65, 2_000, 100_000), fc.boolean());
  const planted = fc
    .record({
      value: valueFor(schema, document),
      choice: fc.nat(),
      hostile: hostileValue,
      asKey: fc.option(hostileKey, { nil: undefined }),
      deep,
    })
    .map(({ value, choice, hostile, asKey, deep: [levels, arrays] }) =>
      JSON.stringify(plant(value, choice, hostile, asKey)).replace(`"${DEEP}"`, nestingText(levels, arrays)),
    );
  return fc.oneof(
    { weight: 6, arbitrary: planted },
    { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: deep.map(([levels, arrays]) => nestingText(levels, arrays)) },
  );
}

/** `arbitrary` in about one request of five, else null. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

const compressors: Record<string, (body: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

const framing = fc.record({
  contentType: fc.oneof(
    { weight: 5, arbitrary: fc.constant('application/json') },
    fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json; charset=bogus',
      'application/merge-patch+json',
      'text/plain',
      'application/x-www-form-urlencoded',
    ),
  ),
  contentEncoding: rarely(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'zstd', 'x, y')),
  encodeProperly: fc.boolean(),
  // Over Node's 16 KiB for the request line and header fields together.
  paddingBytes: rarely(fc.integer({ min: 17_000, max: 40_000 })),
});

/** Requests for `method template` that are malformed in at least one way, often several. */
export function malformedRequestsFor(
  method: string,
  template: string,
  operation: OpenApiOperation,
  document: OpenApiDocument,
): fc.Arbitrary<MalformedRequest> {
  const hasBody = operation.requestBody !== undefined || method === 'DELETE';
  return fc
    .record({
      path: pathFor(template),
      query: queryFor(operation),
      bodyText: hasBody ? fc.option(bodyTextFor(operation, document), { freq: 6 }) : fc.constant(null),
      framing,
    })
    .map(({ path, query, bodyText, framing: f }) => {
      const headers: Record<string, string> = {};
      if (f.paddingBytes !== null) headers['x-padding'] = 'p'.repeat(f.paddingBytes);
      if (bodyText === null) return described({ method, target: path + query, headers });
      headers['content-type'] = f.contentType;
      let body: Buffer = Buffer.from(bodyText, 'utf8');
      if (f.contentEncoding !== null) {
        headers['content-encoding'] = f.contentEncoding;
        const compress = compressors[f.contentEncoding];
        if (compress && f.encodeProperly) body = compress(body);
      }
      return described({ method, target: path + query, headers, body });
    });
}
