import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../hub/src/auth/api-keys.js';
import { renderChart } from '../chart/render-chart.js';
import {
  claimRedisDatabase,
  createTestDatabase,
  type ClaimedRedisDatabase,
  type TestDatabase,
} from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import {
  freePort,
  startMeerkat,
  startMeerkatProcesses,
  type MeerkatProcess,
  type Started,
} from '../harness/processes.js';
import { prometheusFound, startPrometheus, type RunningPrometheus } from '../harness/prometheus.js';
import { scrapeJobsOf } from './chart-scrape-jobs.js';
import { apiCaller, startReceiver, type ApiCall, type Receiver } from './live-activity.js';
import { monitorBody } from './metrics-fixtures.js';
import { selfSigned } from '../runner/test-certificates.js';

// The chart as installed with the Prometheus Operator, its rules and ServiceMonitor rendered with
// prometheus-test-values.yaml (only `for:` is shorter), and a real Prometheus scraping a real hub, scheduler,
// worker and operator every second as that ServiceMonitor's targets. The operator's Kubernetes API answers its
// start-up check (`GET /version`) and is then gone, so its Monitor watch keeps failing.
const chart = renderChart(
  ['charts/meerkat/ci/default-values.yaml', 'test/metrics/prometheus-test-values.yaml'],
  ['v1', 'apps/v1', 'batch/v1', 'monitoring.coreos.com/v1'],
);
const ruleGroups = (chart.find('PrometheusRule', 'meerkat').spec as { groups: unknown[] }).groups;

/** A monitor every 10 s: `ok` against the receiver, or refused (port 9) so that every run fails. */
const everyTenSeconds = (id: string, name: string, base: string, path: string) => ({
  ...monitorBody(name),
  frequency: { every: 1 / 6, unit: 'MINUTE' },
  nodes: [{ ...monitorBody(name).nodes[0], base, path }],
  id,
});

describe('the chart’s alerts in a real Prometheus scraping real Meerkat processes', () => {
  let database: TestDatabase;
  let redisDatabase: ClaimedRedisDatabase | undefined;
  let receiver: Receiver;
  let processes: MeerkatProcess[] = [];
  let prometheus: RunningPrometheus;
  let call: ApiCall;
  let kubeDir: string | undefined;
  let operator: Started | undefined;
  let goneApi: HttpsServer | undefined;
  const firing = async (alertname: string) =>
    (await prometheus.alerts()).filter((a) => a.labels.alertname === alertname && a.state === 'firing');
  const meerkat = (name: string) => processes.find((p) => p.name === name)!;

  beforeAll(async () => {
    expect(prometheusFound(), "prometheus not found: install Debian's prometheus package").toBe(true);
    database = await createTestDatabase({ migrated: true });
    redisDatabase = await claimRedisDatabase();
    receiver = await startReceiver();
    const key = generateApiKey();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redisDatabase.url,
      AUTH_API_KEYS: `acme:admin:${hashApiKey(key)}`,
      SECRETS_KEY: 'ef'.repeat(32),
    };
    processes = await startMeerkatProcesses(env, [
      { name: 'hub', args: ['hub'], ready: /hub API listening/ },
      { name: 'scheduler', args: ['scheduler'], ready: /scheduler running/ },
      { name: 'worker', args: ['worker', '--locations', 'default'], ready: /worker consuming runs/ },
    ]);
    call = apiCaller(meerkat('hub').url, key);
    // Up for the operator's start-up check, closed once it runs (below).
    goneApi = createHttpsServer(selfSigned('127.0.0.1'), (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0' }));
    });
    await new Promise<void>((resolve) => goneApi!.listen(0, '127.0.0.1', resolve));
    const deadApi = (goneApi.address() as AddressInfo).port;
    kubeDir = mkdtempSync(join(tmpdir(), 'meerkat-gone-cluster-'));
    const kubeconfigPath = join(kubeDir, 'kubeconfig');
    writeFileSync(
      kubeconfigPath,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'gone',
            cluster: { server: `https://127.0.0.1:${deadApi}`, 'insecure-skip-tls-verify': true },
          },
        ],
        users: [{ name: 'nobody', user: {} }],
        contexts: [{ name: 'gone', context: { cluster: 'gone', user: 'nobody' } }],
        'current-context': 'gone',
      }),
    );
    for (const monitor of [
      everyTenSeconds('mon-healthy', 'Catalog API', receiver.url, '/ok'),
      everyTenSeconds('mon-broken', 'Checkout API', 'http://127.0.0.1:9', '/'),
    ]) {
      const { id, ...body } = monitor;
      expect((await call('PUT', `/monitor/${id}`, body)).status).toBe(201);
    }
    // Both have finished a scheduled run before Prometheus starts: the hub's health gauges read them at once.
    await eventually(
      'a finished run of each monitor',
      async () => {
        const finished = async (id: string) => {
          const res = await call('GET', `/runs/?monitorId=${id}`);
          const runs = ((await res.json()) as { data: Array<{ status: string }> }).data;
          return runs.some((r) => r.status === 'completed' || r.status === 'failed');
        };
        return (await finished('mon-healthy')) && (await finished('mon-broken'));
      },
      40_000,
    );

    const addresses: Record<string, string> = {};
    for (const p of processes) addresses[p.name] = new URL(p.metricsUrl).host;
    // The operator starts once Prometheus scrapes, so Prometheus sees its watch restarts from the first one.
    const operatorMetricsPort = await freePort();
    addresses.operator = `127.0.0.1:${operatorMetricsPort}`;
    prometheus = await startPrometheus({
      ruleGroups,
      scrapeJobs: scrapeJobsOf(chart, 'meerkat', (component) => addresses[component]),
      intervalSeconds: 1,
    });
    operator = await startMeerkat(
      ['operator'],
      {
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        METRICS_PORT: String(operatorMetricsPort),
        HEALTH_PORT: String(await freePort()),
        MEERKAT_URL: meerkat('hub').url,
        MEERKAT_API_KEY: key,
        KUBECONFIG: kubeconfigPath,
        OPERATOR_LEADER_ELECTION: 'false',
      },
      /operator serving metrics and probes/,
    );
    goneApi.closeAllConnections();
    await new Promise((resolve) => goneApi!.close(resolve));
  }, 120_000);
  afterAll(async () => {
    await prometheus?.stop();
    await Promise.all([...processes.map((p) => p.process.stop()), operator?.stop()]);
    await redisDatabase?.release();
    await receiver?.close();
    await database?.drop();
    if (kubeDir !== undefined) rmSync(kubeDir, { recursive: true, force: true });
  });

  it('scrapes every process under the job the rules name, as the chart’s ServiceMonitor labels it', async () => {
    const up = await eventually('every target scraped', async () => {
      const samples = await prometheus.query('up == 1');
      return samples.length === 4 ? samples : undefined;
    });
    expect(up.map((s) => s.metric.job).sort()).toEqual([
      'meerkat-hub',
      'meerkat-operator',
      'meerkat-scheduler',
      'meerkat-worker',
    ]);
    expect(up.every((s) => s.metric.namespace === 'meerkat' && s.metric.endpoint === 'metrics')).toBe(true);
  });

  it('a failing monitor fires MeerkatMonitorFailing and the SLO alert, with its name, project and links', async () => {
    const [failing] = await eventually(
      'MeerkatMonitorFailing firing',
      async () =>
        (await firing('MeerkatMonitorFailing')).length > 0 ? firing('MeerkatMonitorFailing') : undefined,
      40_000,
    );
    expect(failing!.labels).toMatchObject({
      organization: 'acme',
      monitor: 'mon-broken',
      name: 'Checkout API',
      project: 'shop',
      environment: 'production',
    });
    expect(failing!.annotations.summary).toBe(
      'Monitor Checkout API (shop, production) is failing: its latest run failed',
    );
    expect(failing!.annotations.runbook_url).toBe('https://meerkat.dev/docs/runbooks#meerkatmonitorfailing');
    expect(failing!.annotations.dashboard_url).toBe(
      '/d/meerkat-overview/meerkat-overview?var-organization=acme&var-environment=production',
    );
    const slo = await eventually(
      'MeerkatSuccessRateBelowSlo firing',
      async () => {
        const alerts = await firing('MeerkatSuccessRateBelowSlo');
        return alerts.length > 0 ? alerts : undefined;
      },
      40_000,
    );
    expect(slo.map((a) => [a.labels.monitor, a.labels.name, a.value])).toEqual([
      ['mon-broken', 'Checkout API', '0e+00'],
    ]);
  }, 60_000);

  it('a healthy monitor fires neither', async () => {
    const all = await prometheus.alerts();
    expect(all.filter((a) => a.labels.monitor === 'mon-healthy')).toEqual([]);
    const ratio = await prometheus.query('meerkat:run_success_ratio:rate1h{monitor="mon-healthy"}');
    expect(ratio.map((s) => s.value[1])).toEqual(['1']);
  });

  it('the operator’s lost watch fires MeerkatOperatorWatchLost', async () => {
    const alerts = await eventually(
      'MeerkatOperatorWatchLost firing',
      async () => {
        const found = await firing('MeerkatOperatorWatchLost');
        return found.length > 0 ? found : undefined;
      },
      40_000,
    );
    expect(alerts[0]!.labels).toMatchObject({ job: 'meerkat-operator', severity: 'critical' });
  }, 60_000);

  it('every dashboard query returns data, but for the panels whose precondition this test names', async () => {
    // Panels that need something this test does not bring about.
    const preconditions: Record<string, string> = {
      'Monitor resources by condition': 'a Kubernetes API the operator reaches (this one is gone)',
      'Notification send latency p95 by channel': 'a notification sent in the last 5 minutes',
    };
    const dashboard = JSON.parse(readFileSync('config/grafana/meerkat-overview.json', 'utf8')) as {
      panels: Array<{ title: string; type: string; targets?: Array<{ expr: string }> }>;
    };
    const substitute = (expr: string) =>
      expr
        .replaceAll('$__rate_interval', '1m')
        .replaceAll('$__range', '1h')
        .replace(/\$\{?(organization|project|environment)\}?/g, '.*');
    const empty: string[] = [];
    await eventually(
      'every panel with data',
      async () => {
        empty.length = 0;
        for (const panel of dashboard.panels)
          for (const target of panel.targets ?? []) {
            if (panel.title in preconditions) continue;
            if ((await prometheus.query(substitute(target.expr))).length === 0) empty.push(panel.title);
          }
        return empty.length === 0;
      },
      30_000,
    ).catch(() => undefined);
    expect(empty).toEqual([]);
    expect(
      dashboard.panels
        .filter((p) => p.title in preconditions)
        .map((p) => p.title)
        .sort(),
    ).toEqual(Object.keys(preconditions).sort());
  }, 60_000);

  it('MeerkatHubDown stays inactive while the hub is up and fires once it is stopped', async () => {
    expect((await prometheus.alerts()).filter((a) => a.labels.alertname === 'MeerkatHubDown')).toEqual([]);
    await meerkat('hub').process.stop();
    const down = await eventually(
      'MeerkatHubDown firing',
      async () => {
        const found = await firing('MeerkatHubDown');
        return found.length > 0 ? found : undefined;
      },
      30_000,
    );
    expect(down[0]!.annotations.runbook_url).toBe('https://meerkat.dev/docs/runbooks#meerkathubdown');
  });
});
