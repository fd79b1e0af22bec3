import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startMeerkat, type Started } from '../harness/processes.js';
import { eventually } from '../runs/run-fixtures.js';
import { monitorBody } from './metrics-fixtures.js';

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

describe('Prometheus exposition of a running meerkat dev', () => {
  let dataDir: string;
  let dev: Started;
  let api: string;
  let scrapeUrl: string;
  let key: string;
  const scrape = async () => (await fetch(scrapeUrl)).text();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'meerkat-metrics-'));
    const [port, metricsPort] = [await freePort(), await freePort()];
    dev = await startMeerkat(
      ['dev'],
      { MEERKAT_DATA_DIR: dataDir, PORT: String(port), METRICS_PORT: String(metricsPort) },
      /Try: curl .*\n/,
    );
    key = /Bearer (mk_\S+)"/.exec(dev.output())?.[1] ?? '';
    api = `http://127.0.0.1:${port}`;
    scrapeUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const call = (method: string, path: string, body?: unknown) =>
      fetch(api + path, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // Port 9 refuses connections: the run fails with a `connection` error class.
    expect((await call('PUT', '/monitor/refused', monitorBody('refused'))).status).toBe(201);
    expect((await call('POST', '/runs/trigger/refused', { environment: 'production' })).status).toBe(201);
    expect((await call('GET', '/monitor/no-such-monitor')).status).toBe(404);
    await eventually(async () => ((await scrape()).includes('meerkat_runs_total{') ? true : undefined));
  }, 90_000);
  afterAll(async () => {
    await dev.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts the run outcome, its duration and error class with bounded labels', async () => {
    const text = await scrape();
    const runs = /^meerkat_runs_total\{(.*)\} (\d+)$/m.exec(text);
    expect(runs?.[2]).toBe('1');
    expect(runs?.[1]?.split(',').sort()).toEqual([
      'environment="production"',
      'location="default"',
      'monitor="refused"',
      'outcome="failure"',
      'process="dev"',
    ]);
    expect(text).toMatch(/meerkat_run_failures_total\{[^}]*error_class="connection"[^}]*\} 1/);
    expect(text).toMatch(/meerkat_run_duration_seconds_count\{[^}]*monitor="refused"[^}]*\} 1/);
    const runLabels = new Set(
      [...text.matchAll(/^meerkat_run\w*\{([^}]*)\}/gm)].flatMap(([, labels]) =>
        labels!.split(',').map((pair) => pair.split('=')[0]),
      ),
    );
    expect([...runLabels].sort()).toEqual([
      'environment',
      'error_class',
      'le',
      'location',
      'monitor',
      'outcome',
      'process',
    ]);
    expect(text).not.toContain('127.0.0.1:9');
  });

  it('times API requests by route template, not by concrete path', async () => {
    const text = await scrape();
    expect(text).toMatch(
      /meerkat_http_request_duration_seconds_count\{[^}]*method="GET",route="\/monitor\/:id",status_code="404"/,
    );
    expect(text).not.toContain('no-such-monitor');
  });

  it('exports queue depth and process metrics under the meerkat_ prefix', async () => {
    const names = exportedNames(await scrape());
    expect(names).toContain('meerkat_runs_queued');
    expect(names).toContain('meerkat_process_cpu_seconds_total');
    expect([...names].every((name) => name.startsWith('meerkat_'))).toBe(true);
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
        .filter((name) => !exported.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('promtool accepts the live scrape and the rules', async () => {
    // No silent skip: CI installs promtool (.ci/run); elsewhere this says what to install.
    expect(
      promtoolFound,
      "promtool not found: install Debian's prometheus package (apt-get install prometheus)",
    ).toBe(true);
    const file = join(dataDir, 'scrape.txt');
    writeFileSync(file, await scrape());
    const metrics = spawnSync('promtool', ['check', 'metrics'], { input: readFileSync(file) });
    expect(metrics.stderr.toString() + metrics.stdout.toString()).toBe('');
    expect(metrics.status).toBe(0);
    expect(execFileSync('promtool', ['check', 'rules', 'config/prometheus/rules.yaml']).toString()).toMatch(
      /SUCCESS/,
    );
  });
});
