// An API's answer of the size and entropy of a real one (ids, times, versions): what the bench's target answers
// with BENCH_TARGET_BODY=api (bench/target.ts), so a run's steps carry a whole 1 KiB excerpt as they would against a
// real service, past PostgreSQL's 2 KB toast threshold (docs/adr/0087).
export function apiAnswer() {
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
}
