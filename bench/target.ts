// The benchmark's HTTP target, in its own process so its CPU is not counted as Meerkat's.
// Answers every request with a small JSON body; prints its port on stdout. `GET /requests` answers how many
// requests it has answered so far (itself not counted), so a benchmark can count the checks that reached it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// BENCH_TARGET_BODY=api: an API's answer of the size and entropy of a real one (ids, times, versions), not the
// small default, so a run's steps carry a 1 KiB excerpt as they would against a real service (docs/adr/0087).
const apiBody = () => {
  const ids = [
    '3f6c2a9e-8b1d-4c57-a0e4-6d2f91b7c3a8',
    'b84e1d07-2c9a-4f63-9e15-07a3c5d8e2f4',
    '5a0d7e3c-91b4-4e28-8c6f-2b9e4a71d053',
  ];
  const services = [
    'checkout',
    'payments',
    'search',
    'inventory',
    'accounts',
    'shipping',
    'pricing',
    'reviews',
  ];
  return {
    status: 'ok',
    version: '4.18.2+build.20261127.7c1e9b3',
    region: 'eu-west-1',
    checkedAt: '2026-11-30T09:14:27.318Z',
    dependencies: services.map((name, i) => ({
      name: `${name}-svc`,
      id: ids[i % 3]?.replace(/^[0-9a-f]{4}/, (i * 7919).toString(16).padStart(4, '0')),
      status: i === 5 ? 'degraded' : 'healthy',
      latencyMs: [12, 48, 7, 131, 23, 402, 17, 66][i],
      endpoint: `https://${name}.internal.acme-store.example:8443/healthz`,
      lastIncident: i % 3 === 0 ? null : `INC-${20000 + i * 137}`,
    })),
    page: { cursor: 'eyJvZmZzZXQiOjgsInNlZWQiOiI5ZjJjIn0', size: 8 },
  };
};
const body = JSON.stringify(
  process.env.BENCH_TARGET_BODY === 'api' ? apiBody() : { status: 'ok', items: [1, 2, 3] },
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
