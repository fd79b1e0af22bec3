import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { freePort, startMeerkat, type Started } from '../harness/processes.js';
import { apiCaller, produceActivity, startReceiver, type Receiver } from './live-activity.js';
import { samplesOf } from './prometheus-samples.js';

const promtoolFound = spawnSync('promtool', ['--version']).status === 0;

/** Every series name a scrape can be queried by: histogram families add _bucket, _sum and _count. */
function exportedNames(scrape: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name! + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name! + suffix);
  }
  return names;
}

// One dev process (hub, scheduler and worker in one) with the real activity of live-activity.ts.
describe('Prometheus exposition of a running meerkat dev', () => {
  let dataDir: string;
  let receiver: Receiver;
  let dev: Started;
  let api: string;
  let scrapeUrl: string;
  let key: string;
  let organization: string;
  const scrape = async () => (await fetch(scrapeUrl)).text();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'meerkat-metrics-'));
    receiver = await startReceiver();
    const [port, metricsPort] = [await freePort(), await freePort()];
    dev = await startMeerkat(
      ['dev'],
      { MEERKAT_DATA_DIR: dataDir, PORT: String(port), METRICS_PORT: String(metricsPort) },
      /Try: curl .*\n/,
    );
    key = /Bearer (mk_\S+)"/.exec(dev.output())?.[1] ?? '';
    organization = /organization "([^"]+)"/.exec(dev.output())?.[1] ?? '';
    api = `http://127.0.0.1:${port}`;
    scrapeUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const call = apiCaller(api, key);
    await produceActivity(call, receiver);
    expect((await call('GET', '/monitor/no-such-monitor')).status).toBe(404);
    // The delivery is counted right after its outcome is recorded, which the receiver may see first.
    await eventually(async () =>
      samplesOf(await scrape(), 'meerkat_notification_deliveries_total').some(
        (s) => s.labels.result === 'success' && s.value === 1,
      )
        ? true
        : undefined,
    );
  }, 90_000);
  afterAll(async () => {
    await dev.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts the run outcome, its duration and error class with bounded labels', async () => {
    const text = await scrape();
    const runs = samplesOf(text, 'meerkat_runs_total').filter((s) => s.labels.monitor === 'refused');
    expect(runs.find((s) => s.labels.outcome === 'success')?.value).toBe(0);
    expect(runs.filter((s) => s.value > 0)).toEqual([
      {
        labels: {
          organization,
          environment: 'production',
          location: 'default',
          monitor: 'refused',
          outcome: 'failure',
          process: 'dev',
        },
        value: 1,
      },
    ]);
    const failures = samplesOf(text, 'meerkat_run_failures_total').filter(
      (s) => s.labels.monitor === 'refused' && s.value > 0,
    );
    expect(failures).toEqual([
      {
        labels: {
          organization,
          monitor: 'refused',
          location: 'default',
          environment: 'production',
          error_class: 'connection',
          process: 'dev',
        },
        value: 1,
      },
    ]);
    expect(text).toMatch(/meerkat_run_duration_seconds_count\{[^}]*monitor="refused"[^}]*\} 1/);
    const runLabels = new Set(
      [
        ...text.matchAll(/^meerkat_run(?:s_total|_failures_total|_duration_seconds_\w+)\{([^}]*)\}/gm),
      ].flatMap(([, labels]) => labels!.split(',').map((pair) => pair.split('=')[0])),
    );
    expect([...runLabels].sort()).toEqual([
      'environment',
      'error_class',
      'le',
      'location',
      'monitor',
      'organization',
      'outcome',
      'process',
    ]);
    expect(text).not.toContain('127.0.0.1:9');
  });

  it('times API requests by route template, not by concrete path', async () => {
    const text = await scrape();
    expect(text).toMatch(
      /meerkat_http_request_duration_seconds_count\{[^}]*method="GET",route="\/monitor\/:id",status_class="4xx"/,
    );
    expect(text).not.toContain('no-such-monitor');
  });

  it('reports each monitor’s health from the database: 1 for its current status, 0 for the others', async () => {
    const health = samplesOf(await scrape(), 'meerkat_monitor_health');
    const current = health.filter((s) => s.value === 1).map((s) => s.labels);
    expect(current).toEqual(
      expect.arrayContaining([
        { organization, monitor: 'refused', environment: 'production', status: 'failing', process: 'dev' },
        { organization, monitor: 'ticking', environment: 'production', status: 'healthy', process: 'dev' },
      ]),
    );
    expect(health).toHaveLength(2 * 3);
    expect(current).toHaveLength(2);
    const ratios = samplesOf(await scrape(), 'meerkat_monitor_success_ratio');
    expect(Object.fromEntries(ratios.map((s) => [s.labels.monitor, s.value]))).toEqual({
      refused: 0,
      ticking: 1,
    });
  });

  it('counts the webhook delivery by channel and result, and times its send', async () => {
    const text = await scrape();
    const deliveries = samplesOf(text, 'meerkat_notification_deliveries_total').filter((s) => s.value > 0);
    expect(deliveries).toEqual([
      { labels: { channel: 'webhook', result: 'success', process: 'dev' }, value: 1 },
    ]);
    expect(samplesOf(text, 'meerkat_notification_delivery_duration_seconds_count')).toEqual([
      { labels: { channel: 'webhook', process: 'dev' }, value: 1 },
    ]);
    expect(text).not.toContain(receiver.url);
  });

  it('measures how late each scheduled run started, by location', async () => {
    const text = await scrape();
    const delays = samplesOf(text, 'meerkat_run_schedule_delay_seconds_count');
    expect(delays.map((s) => s.labels)).toEqual([{ location: 'default', process: 'dev' }]);
    expect(delays[0]!.value).toBeGreaterThanOrEqual(1);
    const [sum] = samplesOf(text, 'meerkat_run_schedule_delay_seconds_sum');
    expect(sum!.value).toBeGreaterThanOrEqual(0);
  });

  it('exports Meerkat’s families under the meerkat_ prefix and the process metrics under their standard names', async () => {
    const names = exportedNames(await scrape());
    for (const family of [
      'meerkat_runs_total',
      'meerkat_run_failures_total',
      'meerkat_run_duration_seconds',
      'meerkat_run_schedule_delay_seconds',
      'meerkat_runs_queued',
      'meerkat_monitor_health',
      'meerkat_monitor_success_ratio',
      'meerkat_notification_deliveries_total',
      'meerkat_notification_delivery_duration_seconds',
      'meerkat_notification_outbox_depth',
      'meerkat_http_request_duration_seconds',
    ])
      expect(names).toContain(family);
    // prom-client's defaults under their standard names, which generic Node.js dashboards query.
    for (const standard of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ])
      expect(names).toContain(standard);
    expect([...names].filter((name) => !/^(meerkat|process|nodejs)_/.test(name))).toEqual([]);
  });

  it('says which version runs, and names every monitor to join on', async () => {
    const text = await scrape();
    expect(samplesOf(text, 'meerkat_build_info')).toEqual([
      { labels: { version: '0.1.0', process: 'dev' }, value: 1 },
    ]);
    expect(samplesOf(text, 'meerkat_monitor_info').map((s) => s.labels)).toEqual([
      {
        organization,
        monitor: 'refused',
        name: 'refused',
        project: 'shop',
        environment: 'production',
        process: 'dev',
      },
      {
        organization,
        monitor: 'ticking',
        name: 'ticking',
        project: 'shop',
        environment: 'production',
        process: 'dev',
      },
    ]);
  });

  it('reports an empty queue as 0 for every location a monitor runs in', async () => {
    const queued = samplesOf(await scrape(), 'meerkat_runs_queued');
    expect(queued.map((s) => `${s.labels.location} ${s.labels.status}`).sort()).toEqual([
      'default pending',
      'default running',
    ]);
  });

  it('keeps the rollups that the metrics API reads', async () => {
    const res = await fetch(`${api}/metrics/monitors/refused?period=1h`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const { data } = (await res.json()) as { data: { runs: { total: number }; errorDistribution: object } };
    expect(data.runs.total).toBe(1);
    expect(data.errorDistribution).toEqual({ connection: 1 });
  });

  it('every metric a dashboard panel queries is exported or recorded by the rules', async () => {
    const exported = exportedNames(await scrape());
    const dashboard = JSON.parse(readFileSync('config/grafana/meerkat-overview.json', 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
      templating: { list: Array<{ query?: unknown }> };
    };
    const expressions = [
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => ({ where: p.title, expr: t.expr }))),
      ...dashboard.templating.list.map((v) => ({ where: 'templating', expr: JSON.stringify(v.query ?? '') })),
    ];
    expect(dashboard.panels.length).toBeGreaterThan(5);
    const missing = expressions.flatMap(({ where, expr }) =>
      [...expr.matchAll(/\bmeerkat_[a-z0-9_]+/g)]
        .map(([name]) => name)
        // The operator's series come from `meerkat operator`, which prometheus-alerts.test.ts scrapes.
        .filter((name) => !exported.has(name) && !name.startsWith('meerkat_operator_'))
        .map((name) => `${where}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('promtool accepts the live scrape and the rules, and the alerts fire on the series they are meant for', async () => {
    // No silent skip: CI installs promtool (.ci/run); elsewhere this says what to install.
    expect(
      promtoolFound,
      "promtool not found: install Debian's prometheus package (apt-get install prometheus)",
    ).toBe(true);
    const file = join(dataDir, 'scrape.txt');
    writeFileSync(file, await scrape());
    const metrics = spawnSync('promtool', ['check', 'metrics'], { input: readFileSync(file) });
    // prom-client's standard nodejs_active_*_total are gauges, which promtool's naming lint flags; they are
    // kept under those names because generic Node.js dashboards query them (docs/metrics.md).
    const findings = (metrics.stderr.toString() + metrics.stdout.toString()).trim().split('\n').sort();
    expect(findings).toEqual(
      ['handles', 'requests', 'resources'].map(
        (kind) => `nodejs_active_${kind}_total non-counter metrics should not have "_total" suffix`,
      ),
    );
    expect(execFileSync('promtool', ['check', 'rules', 'config/prometheus/rules.yaml']).toString()).toMatch(
      /SUCCESS/,
    );
    const alerts = spawnSync('promtool', ['test', 'rules', 'test/metrics/prometheus-rules.test.yaml']);
    expect(alerts.stdout.toString() + alerts.stderr.toString()).toMatch(/SUCCESS/);
    expect(alerts.status).toBe(0);
  });
});
