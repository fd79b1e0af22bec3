// A real Prometheus server (Debian's `prometheus` package, which `.ci/run` installs for promtool) on a free
// loopback port, with a temp dir of its own: the tests give it rule groups and scrape jobs and ask its HTTP API.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { eventually } from './eventually.js';
import { freePort } from './processes.js';

export interface ScrapeJob {
  job_name: string;
  static_configs: Array<{ targets: string[]; labels?: Record<string, string> }>;
  relabel_configs?: Array<Record<string, unknown>>;
  metrics_path?: string;
}

export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  value: string;
}

export interface PrometheusSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface RunningPrometheus {
  url: string;
  /** An instant query; rejects when Prometheus answers with an error. */
  query(expr: string): Promise<PrometheusSample[]>;
  /** Every alert pending or firing now. */
  alerts(): Promise<PrometheusAlert[]>;
  /** The scrape targets and their health. */
  targets(): Promise<Array<{ labels: Record<string, string>; health: string; lastError: string }>>;
  stop(): Promise<void>;
}

const prometheusBinary = 'prometheus';

/** Whether `prometheus` is on PATH; a test that needs it fails with how to get it (never skips). */
export function prometheusFound(): boolean {
  return spawnSync(prometheusBinary, ['--version']).status === 0;
}

/**
 * Starts Prometheus with `ruleGroups` (the `groups` of a rules file) and `scrapeJobs`, scraping and evaluating
 * every `intervalSeconds`, and resolves once it answers /-/ready. Its log is in the error when it does not start.
 */
export async function startPrometheus(options: {
  ruleGroups: unknown[];
  scrapeJobs: ScrapeJob[];
  intervalSeconds: number;
}): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'meerkat-prometheus-'));
  writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: options.ruleGroups }));
  const interval = `${options.intervalSeconds}s`;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: interval, evaluation_interval: interval, scrape_timeout: interval },
      rule_files: [join(dir, 'rules.yaml')],
      scrape_configs: options.scrapeJobs,
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    prometheusBinary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-lifecycle',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(url + path);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error ?? res.status}`);
    return body.data;
  };
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      'Prometheus ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${log}`);
        const res = await fetch(`${url}/-/ready`).catch(() => undefined);
        return res?.ok === true ? true : undefined;
      },
      30_000,
    );
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}\n${log.slice(-4000)}`, { cause: error });
  }
  return {
    url,
    query: async (expr) =>
      (await api<{ result: PrometheusSample[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    alerts: async () => (await api<{ alerts: PrometheusAlert[] }>('/api/v1/alerts')).alerts,
    targets: async () =>
      (
        await api<{
          activeTargets: Array<{ labels: Record<string, string>; health: string; lastError: string }>;
        }>('/api/v1/targets')
      ).activeTargets,
    stop,
  };
}
