import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchRequest } from '../../hub/src/runner/dispatched-request.js';
import { ResponseBodyError } from '../../hub/src/runner/step-errors.js';

// The HTTP step's requests go through `dispatchRequest` rather than undici's `request()` (docs/adr/0088); what the
// step's own tests do not reach is checked here: a large body thrown away, an abort before the request starts,
// informational answers, and a body over the limit found while it streams.
describe('dispatchRequest', () => {
  let server: Server;
  let origin: string;
  const agent = new Agent({ connections: 4 });
  let connections = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/large') {
        // 1 MiB in 64 KiB chunks, no content-length: chunked.
        res.writeHead(302, { location: '/small' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        for (let i = 0; i < 16; i++) res.write(chunk);
        res.end();
      } else if (req.url === '/hints') {
        res.writeEarlyHints({ link: '</style.css>; rel=preload' });
        res.end('after hints');
      } else if (req.url === '/stream') {
        res.writeHead(200);
        res.write(Buffer.alloc(600, 'a'));
        setTimeout(() => res.end(Buffer.alloc(600, 'b')), 20);
      } else {
        res.end('small');
      }
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await agent.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (path: string, signal = new AbortController().signal) =>
    dispatchRequest(agent, { url: `${origin}${path}`, method: 'GET', headers: {}, body: undefined, signal });

  it('reads a small body and its headers', async () => {
    const response = await send('/small?x=1');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-length']).toBe('5');
    expect((await response.body.read(1024)).toString()).toBe('small');
  });

  it('throws away a body over 128 KiB by closing the connection, and the next request still goes', async () => {
    const before = connections;
    const response = await send('/large');
    expect(response.statusCode).toBe(302);
    await response.body.dump();
    const next = await send('/small');
    expect((await next.body.read(1024)).toString()).toBe('small');
    expect(connections).toBeGreaterThan(before);
  });

  it('skips an informational answer: the response is the final one', async () => {
    const response = await send('/hints');
    expect(response.statusCode).toBe(200);
    expect((await response.body.read(1024)).toString()).toBe('after hints');
  });

  it('fails a body over the limit while it streams, with the bytes counted', async () => {
    const response = await send('/stream');
    expect(response.statusCode).toBe(200);
    const error = await response.body.read(1000).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseBodyError);
    expect(error).toMatchObject({
      message: 'the response body is over the 1000-byte limit (1200 bytes so far); not read further',
      bytes: 1200,
    });
  });

  it('rejects with the reason of a signal aborted before the request started', async () => {
    const controller = new AbortController();
    const reason = new Error('the run ended');
    controller.abort(reason);
    await expect(send('/small', controller.signal)).rejects.toBe(reason);
  });

  it('rejects the body with the reason of a signal aborted while it streams', async () => {
    const controller = new AbortController();
    const response = await send('/stream', controller.signal);
    const reading = response.body.read(1024 * 1024);
    const reason = new Error('timed out while reading the body');
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
  });
});
