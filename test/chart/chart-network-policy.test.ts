// The chart's NetworkPolicies and which credentials each process's Pods carry.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chartDir, renderChart, type KubeObject, type RenderedChart } from './render-chart.js';

interface IpBlock {
  cidr: string;
  except?: string[];
}
interface Peer {
  ipBlock?: IpBlock;
  podSelector?: { matchLabels: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
}
interface Rule {
  to?: Peer[];
  from?: Peer[];
  ports?: { port: number | string; protocol?: string }[];
}
type Policy = KubeObject & {
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    egress: Rule[];
    ingress: Rule[];
  };
};
type Workload = KubeObject & {
  spec: { template: { spec: { containers: { env: { name: string; valueFrom?: unknown }[] }[] } } };
};

const METADATA = ['169.254.0.0/16', 'fd00:ec2::254/128'];
/** networkPolicy.metricsFrom by default: kube-prometheus-stack's Prometheus Pods. */
const PROMETHEUS = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
  podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
};
const ciValues = (name: string) => join(chartDir, 'ci', name);
const scratch = mkdtempSync(join(tmpdir(), 'meerkat-chart-np-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
function valuesFile(name: string, yaml: string): string {
  const path = join(scratch, name);
  writeFileSync(path, yaml);
  return path;
}

const policy = (chart: RenderedChart, name: string, namespace?: string) => {
  const found = chart
    .ofKind('NetworkPolicy')
    .find((p) => p.metadata.name === name && p.metadata.namespace === namespace);
  if (found === undefined)
    throw new Error(`no NetworkPolicy ${name} in ${namespace ?? 'the release namespace'}`);
  return found as Policy;
};
/** The rules that reach every address: an ipBlock 0.0.0.0/0 or ::/0. */
const openRules = (p: Policy) =>
  p.spec.egress.filter((r) => r.to?.some((peer) => ['0.0.0.0/0', '::/0'].includes(peer.ipBlock?.cidr ?? '')));
const exceptsOf = (p: Policy) =>
  openRules(p).flatMap((r) => r.to!.flatMap((peer) => peer.ipBlock?.except ?? []));
/** Every CIDR a rule allows by name (not the open rule): where the policy makes an exception to its excepts. */
const namedCidrs = (p: Policy) =>
  p.spec.egress
    .filter((r) => !openRules(p).includes(r))
    .flatMap((r) => r.to?.flatMap((peer) => (peer.ipBlock ? [peer.ipBlock.cidr] : [])) ?? []);
const envNames = (chart: RenderedChart, deployment: string) =>
  (chart.find('Deployment', deployment) as Workload).spec.template.spec.containers[0]!.env.map((e) => e.name);
/** The env entries read from a Secret: the credentials, apart from plain entries such as NODE_OPTIONS. */
const credentialNames = (chart: RenderedChart, deployment: string) =>
  (chart.find('Deployment', deployment) as Workload).spec.template.spec.containers[0]!.env.filter(
    (e) => e.valueFrom !== undefined,
  ).map((e) => e.name);

describe('NetworkPolicies with the default values', () => {
  const chart = renderChart([ciValues('default-values.yaml')]);

  it('puts every Pod of the chart under a policy for both directions', () => {
    const names = chart.ofKind('NetworkPolicy').map((p) => p.metadata.name);
    expect(names.sort()).toEqual([
      'meerkat-hub',
      'meerkat-migrate',
      'meerkat-operator',
      'meerkat-scheduler',
      'meerkat-worker',
    ]);
    for (const name of names) {
      const { spec } = policy(chart, name);
      expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe(name.replace('meerkat-', ''));
    }
  });

  it('keeps the workers, which send the monitors’ requests, away from the metadata addresses in both families', () => {
    const worker = policy(chart, 'meerkat-worker');
    expect(openRules(worker)).toEqual([
      {
        to: [
          { ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.0.0/16'] } },
          { ipBlock: { cidr: '::/0', except: ['fd00:ec2::254/128'] } },
        ],
      },
    ]);
    expect(namedCidrs(worker)).toEqual([]);
  });

  it('keeps the hub from the metadata addresses too, and gives scheduler, operator and migrate no open egress', () => {
    expect(exceptsOf(policy(chart, 'meerkat-hub'))).toEqual(METADATA);
    for (const name of ['meerkat-scheduler', 'meerkat-operator', 'meerkat-migrate'])
      expect(openRules(policy(chart, name)), name).toEqual([]);
  });

  it('lets only the operator reach the Kubernetes API ports when no location runs Jobs', () => {
    const toApiPorts = (p: Policy) => p.spec.egress.some((r) => r.ports?.some((port) => port.port === 6443));
    expect(toApiPorts(policy(chart, 'meerkat-operator'))).toBe(true);
    for (const name of ['meerkat-hub', 'meerkat-scheduler', 'meerkat-worker', 'meerkat-migrate'])
      expect(toApiPorts(policy(chart, name)), name).toBe(false);
  });

  it('lets the operator reach the hub’s API and DNS, and nothing else but the Kubernetes API', () => {
    const { spec } = policy(chart, 'meerkat-operator');
    // Only scrapes of its metrics port come in (networkPolicy.metricsFrom).
    expect(spec.ingress).toEqual([{ ports: [{ port: 'metrics' }], from: [PROMETHEUS] }]);
    expect(spec.egress.map((r) => r.ports?.map((p) => p.port))).toEqual([[53, 53], [443, 6443], [3000]]);
  });

  it('admits scrapes on the metrics port from Prometheus only and API calls from anyone', () => {
    expect(policy(chart, 'meerkat-hub').spec.ingress).toEqual([
      { ports: [{ port: 'http' }] },
      { ports: [{ port: 'metrics' }], from: [PROMETHEUS] },
    ]);
    expect(policy(chart, 'meerkat-worker').spec.ingress).toEqual([
      { ports: [{ port: 'metrics' }], from: [PROMETHEUS] },
    ]);
  });
});

describe('NetworkPolicies with job locations, gcp secrets and known addresses', () => {
  const known = valuesFile(
    'known-addresses.yaml',
    [
      'networkPolicy:',
      '  database: { to: [{ ipBlock: { cidr: 10.20.0.5/32 } }] }',
      '  redis: { to: [{ ipBlock: { cidr: 10.20.0.6/32 } }, { ipBlock: { cidr: "fd12::6/128" } }] }',
      '  kubernetesApi: { cidrs: [172.18.0.2/32, 10.96.0.1/32] }',
      '  blockedCidrs: [10.244.0.0/16]',
      '  apiFrom: [{ namespaceSelector: { matchLabels: { kubernetes.io/metadata.name: ingress-nginx } } }]',
    ].join('\n'),
  );
  const chart = renderChart([ciValues('jobs-gcp-prometheus-values.yaml'), known]);

  it('confines runner Jobs in each runner namespace to DNS, the hub’s API and the outside world', () => {
    for (const namespace of ['meerkat-runners', 'meerkat-runners-us']) {
      const runner = policy(chart, 'meerkat-runner', namespace);
      expect(runner.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'meerkat-runner' });
      expect(runner.spec.ingress).toEqual([]);
      expect(runner.spec.egress[1]).toEqual({
        to: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'meerkat' } },
            podSelector: {
              matchLabels: {
                'app.kubernetes.io/name': 'meerkat',
                'app.kubernetes.io/instance': 'meerkat',
                'app.kubernetes.io/component': 'hub',
              },
            },
          },
        ],
        ports: [{ port: 3000 }],
      });
      expect(namedCidrs(runner)).toEqual([]);
      expect(runner.spec.egress).toHaveLength(3);
    }
  });

  it('keeps runner Jobs from metadata, the Kubernetes API, PostgreSQL, Redis and the blocked ranges', () => {
    expect(openRules(policy(chart, 'meerkat-runner', 'meerkat-runners'))).toEqual([
      {
        to: [
          {
            ipBlock: {
              cidr: '0.0.0.0/0',
              except: [
                '169.254.0.0/16',
                '172.18.0.2/32',
                '10.96.0.1/32',
                '10.244.0.0/16',
                '10.20.0.5/32',
                '10.20.0.6/32',
              ],
            },
          },
          { ipBlock: { cidr: '::/0', except: ['fd00:ec2::254/128', 'fd12::6/128'] } },
        ],
      },
    ]);
  });

  it('keeps workers from metadata, the Kubernetes API and the blocked ranges, but lets them reach PostgreSQL and Redis', () => {
    const worker = policy(chart, 'meerkat-worker');
    expect(exceptsOf(worker).sort()).toEqual(
      ['169.254.0.0/16', 'fd00:ec2::254/128', '172.18.0.2/32', '10.96.0.1/32', '10.244.0.0/16'].sort(),
    );
    expect(worker.spec.egress).toContainEqual({
      to: [{ ipBlock: { cidr: '10.20.0.5/32' } }],
      ports: [{ port: 5432, protocol: 'TCP' }],
    });
  });

  it('lets the workers of job locations, which create runner Jobs, and the operator reach the Kubernetes API', () => {
    const apiRule = {
      to: [{ ipBlock: { cidr: '172.18.0.2/32' } }, { ipBlock: { cidr: '10.96.0.1/32' } }],
      ports: [
        { port: 443, protocol: 'TCP' },
        { port: 6443, protocol: 'TCP' },
      ],
    };
    const jobWorker = policy(chart, 'meerkat-job-worker');
    expect(jobWorker.spec).toEqual({
      podSelector: {
        matchLabels: {
          'app.kubernetes.io/name': 'meerkat',
          'app.kubernetes.io/instance': 'meerkat',
          'app.kubernetes.io/component': 'worker',
        },
        matchExpressions: [{ key: 'meerkat.dev/location', operator: 'In', values: ['eu-west', 'us-east'] }],
      },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      egress: [apiRule],
    });
    expect(policy(chart, 'meerkat-operator').spec.egress).toContainEqual(apiRule);
    // The hub creates no Job: its open rule excepts the API server's addresses, and no rule names them.
    const hub = policy(chart, 'meerkat-hub');
    expect(exceptsOf(hub).sort()).toEqual(
      ['169.254.0.0/16', 'fd00:ec2::254/128', '172.18.0.2/32', '10.96.0.1/32'].sort(),
    );
    for (const cidr of ['172.18.0.2/32', '10.96.0.1/32']) expect(namedCidrs(hub)).not.toContain(cidr);
    expect(hub.spec.egress).not.toContainEqual(apiRule);
    expect(policy(chart, 'meerkat-worker').spec.egress).not.toContainEqual(apiRule);
  });

  it('opens the GKE metadata server to the hub and workers only, for Workload Identity with the gcp backend', () => {
    const toGkeMetadata = (p: Policy) => namedCidrs(p).filter((cidr) => cidr.startsWith('169.254.'));
    expect(toGkeMetadata(policy(chart, 'meerkat-worker'))).toEqual([
      '169.254.169.254/32',
      '169.254.169.252/32',
    ]);
    expect(toGkeMetadata(policy(chart, 'meerkat-hub'))).toEqual(['169.254.169.254/32', '169.254.169.252/32']);
    expect(toGkeMetadata(policy(chart, 'meerkat-runner', 'meerkat-runners'))).toEqual([]);
    expect(toGkeMetadata(policy(chart, 'meerkat-scheduler'))).toEqual([]);
  });

  it('admits API calls from apiFrom, the operator and this release’s runner Jobs only', () => {
    const [api] = policy(chart, 'meerkat-hub').spec.ingress;
    expect(api!.from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
      {
        podSelector: {
          matchLabels: {
            'app.kubernetes.io/name': 'meerkat',
            'app.kubernetes.io/instance': 'meerkat',
            'app.kubernetes.io/component': 'operator',
          },
        },
      },
      ...['meerkat-runners', 'meerkat-runners-us'].map((namespace) => ({
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'meerkat-runner' } },
      })),
    ]);
  });
});

describe('turning the NetworkPolicies off', () => {
  it('renders none with networkPolicy.enabled false, and everything else as before', () => {
    const off = valuesFile('no-network-policy.yaml', 'networkPolicy:\n  enabled: false\n');
    const chart = renderChart([ciValues('jobs-gcp-prometheus-values.yaml'), off]);
    expect(chart.ofKind('NetworkPolicy')).toEqual([]);
    const on = renderChart([ciValues('jobs-gcp-prometheus-values.yaml')]);
    expect(chart.objects).toEqual(on.objects.filter((o) => o.kind !== 'NetworkPolicy'));
  });
});

describe('credentials per process', () => {
  const slack = valuesFile(
    'slack-values.yaml',
    "slack:\n  clientId: '1234.5678'\n  clientSecret: a-client-secret\n  signingSecret: a-signing-secret\n",
  );

  it.each([
    ['inline values', [ciValues('jobs-gcp-prometheus-values.yaml'), slack]],
    ['existing Secrets', [ciValues('existing-secrets-values.yaml')]],
  ])('with %s, only the hub carries the API keys and the Slack secrets', (_name, files) => {
    const chart = renderChart(files);
    const hub = envNames(chart, 'meerkat-hub');
    expect(hub).toEqual(expect.arrayContaining(['SLACK_CLIENT_SECRET', 'SLACK_SIGNING_SECRET']));
    const queueProcesses = chart
      .ofKind('Deployment')
      .filter((d) =>
        ['scheduler', 'worker'].includes(d.metadata.labels?.['app.kubernetes.io/component'] ?? ''),
      );
    expect(queueProcesses.length).toBeGreaterThanOrEqual(2);
    for (const { metadata } of queueProcesses)
      expect(credentialNames(chart, metadata.name).sort(), metadata.name).toEqual([
        'DATABASE_URL',
        'REDIS_URL',
        'SECRETS_KEY',
      ]);
  });

  it('gives the hub AUTH_API_KEYS in api-key mode', () => {
    expect(envNames(renderChart([ciValues('default-values.yaml')]), 'meerkat-hub')).toContain(
      'AUTH_API_KEYS',
    );
  });

  it('passes the rate limits to the hub through the settings ConfigMap', () => {
    const limits = valuesFile(
      'rate-limits.yaml',
      'hub:\n  rateLimit: { perSecond: 5, burst: 50, authFailuresPerMinute: 0 }\n  trustedProxyHops: 1\n',
    );
    const chart = renderChart([ciValues('default-values.yaml'), limits]);
    expect((chart.find('ConfigMap', 'meerkat-settings') as KubeObject & { data: object }).data).toMatchObject(
      {
        API_RATE_LIMIT_PER_SECOND: '5',
        API_RATE_LIMIT_BURST: '50',
        API_AUTH_FAILURES_PER_MINUTE: '0',
        API_TRUSTED_PROXY_HOPS: '1',
      },
    );
  });
});
