// The Helm chart rendered with each value set of charts/meerkat/ci, checked as Kubernetes objects.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir, renderChart, type KubeObject, type RenderedChart } from './render-chart.js';

interface Container {
  name: string;
  args: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
  livenessProbe?: { httpGet: { path: string; port: string } };
  readinessProbe?: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodSpec {
  serviceAccountName?: string;
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; emptyDir?: object }[];
  nodeSelector?: Record<string, string>;
}
type Workload = KubeObject & { spec: { replicas?: number; template: { spec: PodSpec } } };
type Rules = { rules: unknown[] };

const ciValues = (name: string) => join(chartDir, 'ci', name);
const repoFile = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const podSpec = (chart: RenderedChart, kind: string, name: string) =>
  (chart.find(kind, name) as Workload).spec.template.spec;
const container = (chart: RenderedChart, name: string) => podSpec(chart, 'Deployment', name).containers[0]!;
const envOf = (c: Container, name: string) => c.env?.find((e) => e.name === name);
const settings = (chart: RenderedChart) =>
  (chart.find('ConfigMap', 'meerkat-settings') as KubeObject & { data: Record<string, string> }).data;

describe('every value set in charts/meerkat/ci, and values-dev.yaml', () => {
  const sets = [
    ...readdirSync(join(chartDir, 'ci')).filter((f) => f.endsWith('.yaml')),
    '../values-dev.yaml',
  ];

  it.each(sets)('%s renders objects that are all labelled for this release and restricted', (file) => {
    const chart = renderChart([ciValues(file)]);
    for (const object of chart.objects) {
      expect(object.metadata.labels, `${object.kind}/${object.metadata.name}`).toMatchObject({
        'app.kubernetes.io/name': 'meerkat',
        'app.kubernetes.io/instance': 'meerkat',
        'app.kubernetes.io/managed-by': 'Helm',
      });
    }
    const pods = chart.objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job') as Workload[];
    expect(pods.length).toBeGreaterThan(0);
    for (const { spec } of pods) {
      const pod = spec.template.spec;
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } });
      for (const c of pod.containers) {
        expect(c.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      }
    }
  });
});

describe('with the default value set', () => {
  const chart = renderChart([ciValues('default-values.yaml')]);

  it('runs N hub replicas probed on /healthz and /readyz behind a Service, with a PodDisruptionBudget', () => {
    const hub = chart.find('Deployment', 'meerkat-hub') as Workload;
    expect(hub.spec.replicas).toBe(2);
    const c = container(chart, 'meerkat-hub');
    expect(c.args).toEqual(['hub']);
    expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(chart.find('Service', 'meerkat-hub')).toMatchObject({
      spec: {
        ports: [
          { name: 'http', port: 3000 },
          { name: 'metrics', port: 9464 },
        ],
      },
    });
    expect(chart.find('PodDisruptionBudget', 'meerkat-hub').apiVersion).toBe('policy/v1');
  });

  it('runs one scheduler and one worker Deployment for the default location', () => {
    expect(container(chart, 'meerkat-scheduler').args).toEqual(['scheduler']);
    expect(container(chart, 'meerkat-worker-default').args).toEqual(['worker', '--locations', 'default']);
    expect(
      chart
        .ofKind('Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(['meerkat-hub', 'meerkat-operator', 'meerkat-scheduler', 'meerkat-worker-default']);
  });

  it('caps the young generation of the hub and the scheduler, and leaves the workers V8 default', () => {
    expect(envOf(container(chart, 'meerkat-hub'), 'NODE_OPTIONS')?.value).toBe('--max-semi-space-size=2');
    expect(envOf(container(chart, 'meerkat-scheduler'), 'NODE_OPTIONS')?.value).toBe(
      '--max-semi-space-size=2',
    );
    expect(envOf(container(chart, 'meerkat-worker-default'), 'NODE_OPTIONS')).toBeUndefined();
  });

  it('renders LOCATIONS as JSON and takes credentials from the chart Secret', () => {
    expect(JSON.parse(settings(chart).LOCATIONS!)).toEqual([{ name: 'default', executor: 'worker' }]);
    expect(envOf(container(chart, 'meerkat-hub'), 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'meerkat-credentials',
      key: 'DATABASE_URL',
    });
    expect(chart.find('Secret', 'meerkat-credentials')).toMatchObject({
      stringData: { REDIS_URL: 'redis://redis:6379' },
    });
  });

  it('runs leader-elected operator replicas probed on their health port, each named in the Lease', () => {
    const deployment = chart.find('Deployment', 'meerkat-operator') as KubeObject & {
      spec: {
        replicas: number;
        template: {
          spec: {
            containers: Array<{
              env: Array<{ name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
              ports: Array<{ name: string; containerPort: number }>;
              livenessProbe: { httpGet: { path: string; port: string } };
              readinessProbe: { httpGet: { path: string; port: string } };
              resources: object;
            }>;
          };
        };
      };
    };
    const container = deployment.spec.template.spec.containers[0];
    expect(deployment.spec.replicas).toBe(2);
    expect(container?.ports).toEqual([
      { name: 'health', containerPort: 8081 },
      { name: 'metrics', containerPort: 9464 },
    ]);
    expect(container?.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'health' });
    expect(container?.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'health' });
    // From issue 39's measurements (values.yaml says which): 489 MiB peak at 10,000 Monitors, 0.25 core syncing.
    expect(container?.resources).toEqual({
      requests: { cpu: '250m', memory: '256Mi' },
      limits: { memory: '640Mi' },
    });
    expect(container?.env.find((e) => e.name === 'POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe(
      'metadata.name',
    );
    expect(container?.env.find((e) => e.name === 'POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe(
      'metadata.namespace',
    );
  });

  it('gives the operator exactly the ClusterRole of config/rbac, bound to its own ServiceAccount', () => {
    const expected = parse(repoFile('config/rbac/operator-clusterrole.yaml')) as Rules;
    expect((chart.find('ClusterRole', 'meerkat-operator') as KubeObject & Rules).rules).toEqual(
      expected.rules,
    );
    expect(chart.find('ClusterRoleBinding', 'meerkat-operator')).toMatchObject({
      subjects: [{ kind: 'ServiceAccount', name: 'meerkat-operator', namespace: 'meerkat' }],
    });
    expect(podSpec(chart, 'Deployment', 'meerkat-operator').serviceAccountName).toBe('meerkat-operator');
  });

  it('grants no Job rights anywhere when no location is a job location', () => {
    expect(chart.ofKind('Role')).toEqual([]);
    expect(chart.ofKind('RoleBinding')).toEqual([]);
  });

  it('migrates in a pre-install/pre-upgrade hook Job', () => {
    const job = chart.find('Job', 'meerkat-migrate');
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(podSpec(chart, 'Job', 'meerkat-migrate').containers[0]!.args).toEqual(['migrate']);
  });

  it('ships the Grafana dashboard for the sidecar and no Prometheus Operator objects without its API', () => {
    const dashboard = chart.find('ConfigMap', 'meerkat-grafana-dashboard') as KubeObject & {
      data: Record<string, string>;
    };
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1');
    expect(JSON.parse(dashboard.data['meerkat-overview.json']!)).toEqual(
      JSON.parse(repoFile('config/grafana/meerkat-overview.json')),
    );
    expect(chart.ofKind('ServiceMonitor')).toEqual([]);
  });

  it('adds a ServiceMonitor and PrometheusRule when the cluster serves monitoring.coreos.com/v1', () => {
    const withOperator = renderChart(
      [ciValues('default-values.yaml')],
      ['v1', 'apps/v1', 'monitoring.coreos.com/v1'],
    );
    expect(withOperator.ofKind('ServiceMonitor')).toHaveLength(1);
    expect(withOperator.ofKind('PrometheusRule')).toHaveLength(1);
  });

  it('tells in NOTES how to reach the API and make a key', () => {
    expect(chart.notes).toContain('port-forward svc/meerkat-hub 3000:3000');
    expect(chart.notes).toContain('keygen --org YOUR_ORG --role admin');
  });
});
