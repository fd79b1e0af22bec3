// The chart's NetworkPolicies as a real kube-apiserver validates them (an `except` outside its block, a bad port
// or peer would be refused here as on a cluster).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NetworkingV1Api, type V1NetworkPolicy } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, createTestNamespace, type TestNamespace } from '../kube/test-cluster.js';
import { chartDir, renderChart } from './render-chart.js';

describe('the NetworkPolicies the chart renders, on the real control plane', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'meerkat-chart-np-kube-'));
  const networking = adminKubeConfig().makeApiClient(NetworkingV1Api);
  let namespace: TestNamespace;

  beforeAll(async () => {
    namespace = await createTestNamespace('chart-np');
  });
  afterAll(async () => {
    await namespace?.delete();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('are all accepted, with every address known and with none', async () => {
    const known = join(scratch, 'known.yaml');
    writeFileSync(
      known,
      [
        'networkPolicy:',
        '  database: { to: [{ ipBlock: { cidr: 10.20.0.5/32 } }] }',
        '  redis: { to: [{ namespaceSelector: {}, podSelector: { matchLabels: { app: redis } } }] }',
        '  kubernetesApi: { cidrs: [172.18.0.2/32, "fd00:10::1/128"] }',
        '  blockedCidrs: [10.244.0.0/16, "fd00:244::/56"]',
        '  apiFrom: [{ ipBlock: { cidr: 192.0.2.0/24 } }]',
      ].join('\n'),
    );
    const valueSets = [
      [join(chartDir, 'ci', 'jobs-gcp-prometheus-values.yaml'), known],
      [join(chartDir, 'ci', 'default-values.yaml')],
    ];
    let created = 0;
    for (const [index, files] of valueSets.entries()) {
      const policies = renderChart(files).ofKind('NetworkPolicy') as V1NetworkPolicy[];
      expect(policies.length).toBeGreaterThan(0);
      for (const policy of policies) {
        const body = {
          ...policy,
          metadata: {
            ...policy.metadata,
            name: `${policy.metadata!.name}-${index}-${created}`,
            namespace: namespace.name,
          },
        };
        const stored = await networking.createNamespacedNetworkPolicy({ namespace: namespace.name, body });
        expect(stored.spec).toEqual(expect.objectContaining({ policyTypes: ['Ingress', 'Egress'] }));
        created += 1;
      }
    }
    expect(created).toBeGreaterThanOrEqual(12);
  });
});
