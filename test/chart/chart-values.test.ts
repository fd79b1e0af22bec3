// The chart with job locations, gcp secrets, the Prometheus Operator and user-managed Secrets; and a broken
// chart or missing values failing the render.
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { NO_QUOTAS, quotaDefaultsOf, quotaSettingsShape } from '../../hub/src/quotas/organization-quotas.js';
import { chartDir, renderChart, type KubeObject } from './render-chart.js';

type Env = { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } };
type Workload = KubeObject & {
  spec: {
    replicas: number;
    template: { spec: { nodeSelector?: object; containers: { args: string[]; env: Env[] }[] } };
  };
};
const ciValues = (name: string) => join(chartDir, 'ci', name);
const repoFile = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('with job locations, gcp secrets and the Prometheus Operator', () => {
  const chart = renderChart([ciValues('jobs-gcp-prometheus-values.yaml')]);
  const data = (chart.find('ConfigMap', 'meerkat-settings') as KubeObject & { data: Record<string, string> })
    .data;

  it("binds the Job Role of config/rbac in each runner namespace to the job locations' workers, and nowhere else", () => {
    const { rules } = parse(repoFile('config/rbac/worker-runner-jobs-role.yaml')) as { rules: unknown[] };
    const roles = chart.ofKind('Role') as (KubeObject & { rules: unknown[] })[];
    expect(roles.map((r) => r.metadata.namespace).sort()).toEqual(['meerkat-runners', 'meerkat-runners-us']);
    for (const role of roles) expect(role.rules).toEqual(rules);
    const bindings = chart.ofKind('RoleBinding');
    expect(bindings).toHaveLength(2);
    for (const binding of bindings) {
      expect(binding).toMatchObject({
        roleRef: { kind: 'Role', name: 'meerkat-worker-runner-jobs' },
        subjects: [{ kind: 'ServiceAccount', name: 'meerkat-job-worker', namespace: 'meerkat' }],
      });
    }
  });

  it('mounts a token only for the workers of job locations: the hub and the other workers have no Kubernetes access', () => {
    const automount = (name: string) =>
      (chart.find('ServiceAccount', name) as KubeObject & { automountServiceAccountToken: boolean })
        .automountServiceAccountToken;
    expect(automount('meerkat-job-worker')).toBe(true);
    expect(automount('meerkat-hub')).toBe(false);
    expect(automount('meerkat-worker')).toBe(false);
    const accountOf = (name: string) =>
      (
        chart.find('Deployment', name) as Workload & {
          spec: { template: { spec: { serviceAccountName: string } } };
        }
      ).spec.template.spec.serviceAccountName;
    expect(accountOf('meerkat-hub')).toBe('meerkat-hub');
    expect(accountOf('meerkat-worker-default')).toBe('meerkat-worker');
    expect(accountOf('meerkat-worker-eu-west')).toBe('meerkat-job-worker');
    expect(accountOf('meerkat-worker-us-east')).toBe('meerkat-job-worker');
  });

  it('runs a worker Deployment per location, each serving its own queue, with its own replicas and placement', () => {
    const workers = chart
      .ofKind('Deployment')
      .filter((d) => d.metadata.labels?.['app.kubernetes.io/component'] === 'worker');
    expect(workers.map((w) => w.metadata.name).sort()).toEqual([
      'meerkat-worker-default',
      'meerkat-worker-eu-central',
      'meerkat-worker-eu-west',
      'meerkat-worker-us-east',
    ]);
    for (const worker of workers as Workload[]) {
      const location = worker.metadata.labels?.['meerkat.dev/location'];
      expect(worker.spec.template.spec.containers[0]!.args).toEqual(['worker', '--locations', location]);
    }
    const euCentral = chart.find('Deployment', 'meerkat-worker-eu-central') as Workload;
    expect(euCentral.spec.replicas).toBe(1);
    expect(euCentral.spec.template.spec.nodeSelector).toEqual({
      'topology.kubernetes.io/region': 'europe-west3',
    });
    expect(euCentral.metadata.labels?.['meerkat.dev/location']).toBe('eu-central');
    expect(chart.notes).toContain(
      'runs Jobs in namespace meerkat-runners, created by Deployment meerkat-worker-eu-west',
    );
    expect((chart.find('Deployment', 'meerkat-hub') as Workload).spec.replicas).toBe(3);
    expect(
      (chart.find('Deployment', 'meerkat-hub') as Workload).spec.template.spec.containers[0]!.args,
    ).toEqual(['hub']);
  });

  it('configures the gcp backend with a Workload Identity annotation on the hub and worker accounts', () => {
    expect(data).toMatchObject({ SECRETS_BACKEND: 'gcp', GCP_PROJECT: 'acme-monitoring' });
    for (const name of ['meerkat-hub', 'meerkat-worker']) {
      expect(chart.find('ServiceAccount', name).metadata.annotations).toEqual({
        'iam.gke.io/gcp-service-account': 'meerkat@acme-monitoring.iam.gserviceaccount.com',
      });
    }
    expect(chart.find('ServiceAccount', 'meerkat-operator').metadata.annotations).toBeUndefined();
  });

  it('adds the ServiceMonitor and the PrometheusRule of config/prometheus/rules.yaml when forced on', () => {
    expect(chart.find('ServiceMonitor', 'meerkat')).toMatchObject({
      metadata: { labels: { release: 'kube-prometheus-stack' } },
      spec: {
        selector: { matchLabels: { 'meerkat.dev/metrics': 'true' } },
        endpoints: [{ port: 'metrics' }],
      },
    });
    const { groups } = parse(repoFile('config/prometheus/rules.yaml')) as { groups: unknown[] };
    expect(chart.find('PrometheusRule', 'meerkat')).toMatchObject({ spec: { groups } });
    expect(chart.find('Service', 'meerkat-metrics')).toMatchObject({ spec: { clusterIP: 'None' } });
  });
});

describe('with every credential in an existing Secret', () => {
  const chart = renderChart([ciValues('existing-secrets-values.yaml')]);
  const hubEnv = (chart.find('Deployment', 'meerkat-hub') as Workload).spec.template.spec.containers[0]!.env;

  it('references the Secrets where they are and copies nothing into a Secret of its own', () => {
    const refs = Object.fromEntries(hubEnv.map((e) => [e.name, e.valueFrom?.secretKeyRef]));
    expect(refs).toEqual({
      DATABASE_URL: { name: 'meerkat-database', key: 'url' },
      REDIS_URL: { name: 'meerkat-redis', key: 'url' },
      SECRETS_KEY: { name: 'meerkat-keys', key: 'SECRETS_KEY' },
      SLACK_CLIENT_SECRET: { name: 'meerkat-slack', key: 'SLACK_CLIENT_SECRET' },
      SLACK_SIGNING_SECRET: { name: 'meerkat-slack', key: 'SLACK_SIGNING_SECRET' },
    });
    expect(chart.ofKind('Secret')).toEqual([]);
    const migrate = chart.find('Job', 'meerkat-migrate') as Workload;
    expect(migrate.spec.template.spec.containers[0]!.env).toContainEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'meerkat-database', key: 'url' } },
    });
  });

  it('leaves the operator out and puts the dashboard in the Grafana namespace', () => {
    expect(chart.objects.filter((o) => o.metadata.name === 'meerkat-operator')).toEqual([]);
    expect(chart.find('ConfigMap', 'meerkat-grafana-dashboard').metadata.namespace).toBe('monitoring');
  });
});

describe('a chart that cannot render', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'meerkat-chart-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('fails naming the missing setting when a required credential has no value', () => {
    expect(() => renderChart([])).toThrow(
      /DATABASE_URL is required: set database.url or database.existingSecret/,
    );
  });

  it('refuses values that break values.schema.json, naming each field, as Helm does', () => {
    const wrong = join(scratch, 'wrong-values.yaml');
    writeFileSync(wrong, 'hub:\n  replicas: three\n  colour: red\n');
    let message = '';
    try {
      renderChart([ciValues('default-values.yaml'), wrong]);
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain("values don't meet the specifications of the schema(s)");
    expect(message).toContain('- hub.replicas: Invalid type. Expected: integer, given: string');
    expect(message).toContain('- hub: Additional property colour is not allowed');
  });

  it('accepts every values file the chart ships', () => {
    for (const file of [
      'default-values.yaml',
      'jobs-gcp-prometheus-values.yaml',
      'existing-secrets-values.yaml',
    ]) {
      expect(() => renderChart([ciValues(file)])).not.toThrow();
    }
  });

  it('fails when a template calls a function Helm does not have', () => {
    cpSync(chartDir, join(scratch, 'meerkat'), { recursive: true });
    appendFileSync(
      join(scratch, 'meerkat', 'templates', 'hub.yaml'),
      '\n{{ .Values.hub.port | noSuchFunction }}\n',
    );
    expect(() => renderChart([ciValues('default-values.yaml')], undefined, join(scratch, 'meerkat'))).toThrow(
      /noSuchFunction/,
    );
  });
});

describe('quotas per organization', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'meerkat-chart-quotas-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const settingsOf = (chart: ReturnType<typeof renderChart>) =>
    (chart.find('ConfigMap', 'meerkat-settings') as KubeObject & { data: Record<string, string> }).data;
  const quotaSettings = z.object(quotaSettingsShape);

  it('renders every quota off by default, and no platform admin', () => {
    const data = settingsOf(renderChart([ciValues('default-values.yaml')]));
    expect(quotaDefaultsOf(quotaSettings.parse(data))).toEqual(NO_QUOTAS);
    expect(data).not.toHaveProperty('PLATFORM_ADMIN_ORGANIZATION');
  });

  it('renders the values as the QUOTA_* settings the hub reads, and the platform admin organization', () => {
    const values = join(scratch, 'quotas.yaml');
    writeFileSync(
      values,
      'quotas:\n  monitors: 20000\n  minFrequencySeconds: 30\n  locationsPerMonitor: 3\n  runsKept: 1000000000000\n' +
        '  requestsPerSecond: 2.5\nplatformAdminOrganization: platform\n',
    );
    const data = settingsOf(renderChart([ciValues('default-values.yaml'), values]));
    expect(quotaDefaultsOf(quotaSettings.parse(data))).toEqual({
      monitors: 20_000,
      minFrequencySeconds: 30,
      locationsPerMonitor: 3,
      runsKept: 1_000_000_000_000,
      requestsPerSecond: 2.5,
    });
    expect(data.PLATFORM_ADMIN_ORGANIZATION).toBe('platform');
  });

  it('refuses a quota the hub would refuse, naming it', () => {
    const wrong = join(scratch, 'wrong-quotas.yaml');
    writeFileSync(wrong, 'quotas:\n  monitors: -1\n  locationsPerMonitor: 2.5\n  burst: 3\n');
    expect(() => renderChart([ciValues('default-values.yaml'), wrong])).toThrow(/quotas\.monitors/);
    expect(() => renderChart([ciValues('default-values.yaml'), wrong])).toThrow(
      /quotas\.locationsPerMonitor/,
    );
    expect(() => renderChart([ciValues('default-values.yaml'), wrong])).toThrow(/Additional property burst/);
  });
});

describe('NODE_OPTIONS per process', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'meerkat-chart-node-options-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const envValueOf = (chart: ReturnType<typeof renderChart>, deployment: string, name: string) =>
    (chart.find('Deployment', deployment) as Workload).spec.template.spec.containers[0]!.env.find(
      (e) => e.name === name,
    )?.value;
  const nodeOptionsOf = (chart: ReturnType<typeof renderChart>, deployment: string) =>
    envValueOf(chart, deployment, 'NODE_OPTIONS');

  it('sets each process its own, and none where the value is empty', () => {
    const values = join(scratch, 'node-options.yaml');
    writeFileSync(values, "hub:\n  nodeOptions: ''\nworker:\n  nodeOptions: --max-semi-space-size=8\n");
    const chart = renderChart([ciValues('default-values.yaml'), values]);
    expect(nodeOptionsOf(chart, 'meerkat-hub')).toBeUndefined();
    expect(nodeOptionsOf(chart, 'meerkat-scheduler')).toBe('--max-semi-space-size=2');
    expect(nodeOptionsOf(chart, 'meerkat-worker-default')).toBe('--max-semi-space-size=8');
  });

  // The heap budget of docs/adr/0071-heap-budget.md per process, as NODE_OPTIONS: 0 renders nothing (off).
  const heapBudgetOf = (chart: ReturnType<typeof renderChart>, deployment: string) =>
    envValueOf(chart, deployment, 'HEAP_BUDGET_MIB');

  it('sets HEAP_BUDGET_MIB of each process from its own heapBudgetMib, and none where it is 0', () => {
    const values = join(scratch, 'heap-budget.yaml');
    writeFileSync(
      values,
      'hub:\n  heapBudgetMib: 0\nscheduler:\n  heapBudgetMib: 96\nworker:\n  heapBudgetMib: 200\n',
    );
    const chart = renderChart([ciValues('default-values.yaml'), values]);
    expect(heapBudgetOf(chart, 'meerkat-hub')).toBeUndefined();
    expect(heapBudgetOf(chart, 'meerkat-scheduler')).toBe('96');
    expect(heapBudgetOf(chart, 'meerkat-worker-default')).toBe('200');
  });

  it('refuses a heap budget that is not a whole number of MiB', () => {
    const values = join(scratch, 'heap-budget-wrong.yaml');
    writeFileSync(values, 'worker:\n  heapBudgetMib: 1.5\n');
    expect(() => renderChart([ciValues('default-values.yaml'), values])).toThrow(/heapBudgetMib/);
  });
});
