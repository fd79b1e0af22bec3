// The benchmark's HTTP target, in its own process so its CPU is not counted as Meerkat's.
// Answers every request with a small JSON body; prints its port on stdout.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = JSON.stringify({ status: 'ok', items: [1, 2, 3] });
const server = createServer((_req, res) => {
  res
    .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    .end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
