// The metrics ports name every organization's monitors: with the chart's NetworkPolicies only Prometheus scrapes
// them, never the release's workers or runner Jobs, which send tenants' requests; and a bearer token, when set,
// reaches every process and the ServiceMonitor.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canReach, type PodEnd } from './network-policy-reach.js';
import { chartDir, renderChart, type KubeObject, type RenderedChart } from './render-chart.js';

type Deployment = KubeObject & {
  spec: {
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        containers: Array<{
          ports?: Array<{ name: string; containerPort: number }>;
          env?: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
          readinessProbe?: { httpGet?: { path: string; port: string } };
        }>;
      };
    };
  };
};

const RELEASE_NAMESPACE = 'meerkat';
const scratch = mkdtempSync(join(tmpdir(), 'meerkat-chart-scrape-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const ciValues = (name: string) => join(chartDir, 'ci', name);

/** The Pod a Deployment makes, at an address of the Pod network. */
function podOf(chart: RenderedChart, name: string, ip: string): PodEnd {
  const { template } = (chart.find('Deployment', name) as Deployment).spec;
  const ports = Object.fromEntries(
    (template.spec.containers[0]?.ports ?? []).map((p) => [p.name, p.containerPort]),
  );
  return { namespace: RELEASE_NAMESPACE, labels: template.metadata.labels, ip, ports };
}

const prometheus: PodEnd = {
  namespace: 'monitoring',
  labels: { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'kube-prometheus-stack' },
  ip: '10.244.9.9',
};
const otherTenantPod: PodEnd = { namespace: 'team-a', labels: { app: 'shop' }, ip: '10.244.7.7' };

describe("the release's metrics ports with the default values", () => {
  const chart = renderChart([ciValues('jobs-gcp-prometheus-values.yaml')]);
  const processes = ['meerkat-hub', 'meerkat-scheduler', 'meerkat-worker-default', 'meerkat-operator'];
  const worker = podOf(chart, 'meerkat-worker-eu-central', '10.244.1.5');
  const runner: PodEnd = {
    namespace: 'meerkat-runners',
    labels: { 'app.kubernetes.io/name': 'meerkat-runner' },
    ip: '10.244.2.6',
  };

  it.each(processes)('keeps the workers and runner Jobs from the metrics port of %s', (name) => {
    const target = podOf(chart, name, '10.244.3.7');
    expect(canReach(chart.objects, RELEASE_NAMESPACE, worker, target, 'metrics')).toBe(false);
    expect(canReach(chart.objects, RELEASE_NAMESPACE, runner, target, 'metrics')).toBe(false);
    expect(canReach(chart.objects, RELEASE_NAMESPACE, otherTenantPod, target, 'metrics')).toBe(false);
  });

  it.each(processes)('lets Prometheus in the monitoring namespace scrape %s', (name) => {
    const target = podOf(chart, name, '10.244.3.7');
    expect(canReach(chart.objects, RELEASE_NAMESPACE, prometheus, target, 'metrics')).toBe(true);
  });

  it("still lets runner Jobs report to the hub's API port, which is what they are for", () => {
    const hub = podOf(chart, 'meerkat-hub', '10.244.3.7');
    expect(canReach(chart.objects, RELEASE_NAMESPACE, runner, hub, 'http')).toBe(true);
  });

  it('probes the metrics port on /healthz, which needs no token', () => {
    const probe = (chart.find('Deployment', 'meerkat-scheduler') as Deployment).spec.template.spec
      .containers[0]?.readinessProbe;
    expect(probe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
  });
});

describe('metricsFrom that selects every namespace (the former default)', () => {
  const values = join(scratch, 'open.yaml');
  writeFileSync(values, 'networkPolicy:\n  metricsFrom: [{ namespaceSelector: {} }]\n');
  const chart = renderChart([ciValues('default-values.yaml'), values]);

  it("lets a worker read the hub's metrics: the path the default closes", () => {
    const worker = podOf(chart, 'meerkat-worker-default', '10.244.1.5');
    const hub = podOf(chart, 'meerkat-hub', '10.244.3.7');
    expect(canReach(chart.objects, RELEASE_NAMESPACE, worker, hub, 'metrics')).toBe(true);
  });
});

describe('a bearer token for /metrics', () => {
  const values = join(scratch, 'token.yaml');
  writeFileSync(values, "metrics:\n  bearerToken:\n    token: 'a-scrape-token-of-32-characters!'\n");
  const chart = renderChart([ciValues('jobs-gcp-prometheus-values.yaml'), values]);

  it('reaches every process as METRICS_BEARER_TOKEN from the chart Secret', () => {
    for (const name of ['meerkat-hub', 'meerkat-scheduler', 'meerkat-worker-default', 'meerkat-operator']) {
      const env = (chart.find('Deployment', name) as Deployment).spec.template.spec.containers[0]?.env ?? [];
      expect(env.find((e) => e.name === 'METRICS_BEARER_TOKEN')?.valueFrom, name).toEqual({
        secretKeyRef: { name: 'meerkat-credentials', key: 'METRICS_BEARER_TOKEN' },
      });
    }
    const secret = chart.find('Secret', 'meerkat-credentials') as KubeObject & {
      stringData: Record<string, string>;
    };
    expect(secret.stringData.METRICS_BEARER_TOKEN).toBe('a-scrape-token-of-32-characters!');
  });

  it("is presented by the ServiceMonitor, as Prometheus' authorization", () => {
    const monitor = chart.find('ServiceMonitor', 'meerkat') as KubeObject & {
      spec: { endpoints: Array<Record<string, unknown>> };
    };
    expect(monitor.spec.endpoints[0]?.authorization).toEqual({
      type: 'Bearer',
      credentials: { name: 'meerkat-credentials', key: 'METRICS_BEARER_TOKEN' },
    });
  });

  it('is absent by default', () => {
    const plain = renderChart([ciValues('jobs-gcp-prometheus-values.yaml')]);
    const monitor = plain.find('ServiceMonitor', 'meerkat') as KubeObject & {
      spec: { endpoints: Array<Record<string, unknown>> };
    };
    expect(monitor.spec.endpoints[0]).not.toHaveProperty('authorization');
  });
});
