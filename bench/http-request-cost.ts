// The worker's CPU a request of undici's `request()` (as the HTTP step used before docs/adr/0088) against the
// runner's `dispatchRequest`, each reading a small body, from a loopback server in a child process (its CPU is not
// counted). Rounds alternate, so a shared machine's load falls on both alike.
// Usage: npx tsx bench/http-request-cost.ts [requests a round, default 20000]
import { spawn } from 'node:child_process';
import { Agent, request } from 'undici';
import { dispatchRequest } from '../hub/src/runner/dispatched-request.js';

const requestsARound = Number(process.argv[2] ?? 20000);
const CONCURRENCY = 20;
const SERVER = `
const body = Buffer.from('{"status":"ok","checks":3}');
const server = require('node:http').createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<string>((resolve) =>
  child.stdout.once('data', (data: Buffer) => resolve(String(data).trim())),
);
const url = `http://127.0.0.1:${port}/m/1`;
const agent = new Agent({ connections: 64 });

async function viaRequest(): Promise<number> {
  const response = await request(url, {
    dispatcher: agent,
    method: 'GET',
    signal: new AbortController().signal,
  });
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, bytes).length;
}

async function viaDispatch(): Promise<number> {
  const response = await dispatchRequest(agent, {
    url,
    method: 'GET',
    headers: {},
    body: undefined,
    signal: new AbortController().signal,
  });
  return (await response.body.read(64 * 1024)).length;
}

/** µs of this process's CPU a request, over `total` requests `CONCURRENCY` at a time. */
async function round(send: () => Promise<number>, total: number): Promise<number> {
  let left = total;
  const start = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await send();
    }),
  );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / total;
}

await round(viaRequest, 3000);
await round(viaDispatch, 3000);
for (let i = 0; i < 4; i++) {
  const before = await round(viaRequest, requestsARound);
  const after = await round(viaDispatch, requestsARound);
  console.log(
    `request() ${before.toFixed(1)} µs, dispatchRequest ${after.toFixed(1)} µs a request of this process, ` +
      `${(after / before).toFixed(2)}x`,
  );
}
await agent.close();
child.kill();
