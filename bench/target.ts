// The benchmark's HTTP target, in its own process so its CPU is not counted as Meerkat's.
// Answers every request with a small JSON body; prints its port on stdout. `GET /requests` answers how many
// requests it has answered so far (itself not counted), so a benchmark can count the checks that reached it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiAnswer } from './api-answer.js';

// BENCH_TARGET_BODY=api: a real service's answer instead of the small default (bench/api-answer.ts).
const body = JSON.stringify(
  process.env.BENCH_TARGET_BODY === 'api' ? apiAnswer() : { status: 'ok', items: [1, 2, 3] },
);
let answered = 0;
const server = createServer((req, res) => {
  if (req.url === '/requests') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(String(answered));
    return;
  }
  answered += 1;
  res
    .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    .end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  // Keep-alive clients (a worker, blackbox_exporter) would otherwise hold the close open.
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
