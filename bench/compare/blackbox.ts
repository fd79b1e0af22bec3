// Debian's `prometheus` and `prometheus-blackbox-exporter` doing the same work: N probe targets (each one GET to
// the bench target, module http_2xx: the status check), scraped every S seconds. Installed with apt-get when
// missing (as root on Debian), started on loopback with generated configs in a temp dir.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { eventually } from '../../test/harness/eventually.js';
import { spawnLogged } from '../../test/harness/global-setup.js';
import { freePort } from '../../test/harness/processes.js';
import type { RunningSystem, Workload } from './bench-system.js';
import { endOf, killOnExit, stopChild, within } from './bounded.js';
import { describeChild } from './diagnosis.js';
import { probesAsRuns, runFigures } from './window-figures.js';

const PROMETHEUS = '/usr/bin/prometheus';
const BLACKBOX = '/usr/bin/prometheus-blackbox-exporter';
const INSTALL_MS = 600_000;
const START_MS = 30_000;
const STOP_MS = 15_000;
const QUERY_MS = 30_000;

/** Installs both packages when one is missing; throws saying what to do when it cannot. */
export function installBlackboxWhenMissing(say: (line: string) => void): void {
  if (existsSync(PROMETHEUS) && existsSync(BLACKBOX)) return;
  if (process.getuid?.() !== 0 || !existsSync('/etc/debian_version'))
    throw new Error(
      'prometheus or blackbox_exporter missing: apt-get install prometheus prometheus-blackbox-exporter',
    );
  say('installing prometheus and prometheus-blackbox-exporter with apt-get');
  const options = {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: 'inherit',
    timeout: INSTALL_MS,
  } as const;
  const packages = ['prometheus', 'prometheus-blackbox-exporter'];
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], options);
  // Fresh containers often lack package lists; refresh only when the install needs it.
  if (install().status !== 0 && (spawnSync('apt-get', ['update'], options), install().status !== 0))
    throw new Error(`apt-get install ${packages.join(' ')} failed (or took over ${INSTALL_MS / 1000} s)`);
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

type Server = ReturnType<typeof spawnLogged>;

/**
 * Starts `command` with its config written to `dir`, listening on 127.0.0.1:`port` and logging to `dir`; ready
 * once `readyPath` answers 2xx. Throws with its log when it ends or is not ready in time.
 */
async function startServer(spec: {
  name: string;
  command: string;
  dir: string;
  port: number;
  config: string;
  args: string[];
  readyPath: string;
}): Promise<Server> {
  const configFile = join(spec.dir, `${spec.name}.yml`);
  writeFileSync(configFile, spec.config);
  const args = [`--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${spec.port}`, ...spec.args];
  const server = spawnLogged(spec.name, spec.command, args, spec.dir, undefined);
  killOnExit(server.child);
  try {
    await eventually(async () => {
      if (server.child.exitCode !== null || server.child.signalCode !== null)
        throw new Error(`it ended (${endOf(server.child)})`);
      return answers(`http://127.0.0.1:${spec.port}${spec.readyPath}`);
    }, START_MS);
  } catch (error) {
    await stopChild(server.child, 'SIGKILL', STOP_MS);
    const log = server.readLog();
    throw new Error(`${spec.name} did not start: ${(error as Error).message}; its log:\n${log}`, {
      cause: error,
    });
  }
  return server;
}

interface MatrixSeries {
  metric: { instance: string };
  values: Array<[number, string]>;
}

function configs(workload: Workload, blackboxPort: number) {
  const blackbox = {
    modules: {
      http_2xx: { prober: 'http', timeout: '5s', http: { method: 'GET', preferred_ip_protocol: 'ip4' } },
    },
  };
  // One distinct target URL per "monitor", so Prometheus keeps N series, as N monitors are N histories.
  const targets = Array.from({ length: workload.monitors }, (_, i) => `${workload.targetUrl}/ok?m=${i}`);
  const prometheus = {
    global: {
      scrape_interval: `${workload.everySeconds}s`,
      scrape_timeout: `${Math.min(10, workload.everySeconds)}s`,
    },
    scrape_configs: [
      {
        job_name: 'blackbox',
        metrics_path: '/probe',
        params: { module: ['http_2xx'] },
        static_configs: [{ targets }],
        relabel_configs: [
          { source_labels: ['__address__'], target_label: '__param_target' },
          { source_labels: ['__param_target'], target_label: 'instance' },
          { target_label: '__address__', replacement: `127.0.0.1:${blackboxPort}` },
        ],
      },
    ],
  };
  return { targets, blackbox: stringify(blackbox), prometheus: stringify(prometheus) };
}

export async function startBlackbox(workload: Workload): Promise<RunningSystem> {
  const dir = mkdtempSync(join(tmpdir(), 'meerkat-compare-prometheus-'));
  const servers: Server[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => stopChild(server.child, 'SIGTERM', STOP_MS)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [blackboxPort, prometheusPort] = [await freePort(), await freePort()];
    const config = configs(workload, blackboxPort);
    const blackbox = await startServer({
      name: 'blackbox_exporter',
      command: BLACKBOX,
      dir,
      port: blackboxPort,
      config: config.blackbox,
      args: [],
      readyPath: '/-/healthy',
    });
    servers.push(blackbox);
    const prometheus = await startServer({
      name: 'prometheus',
      command: PROMETHEUS,
      dir,
      port: prometheusPort,
      config: config.prometheus,
      args: [`--storage.tsdb.path=${join(dir, 'data')}`],
      readyPath: '/-/ready',
    });
    servers.push(prometheus);
    const prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
    return {
      label: 'Prometheus + blackbox_exporter (Debian)',
      components: { blackbox_exporter: [blackbox.child.pid ?? 0], Prometheus: [prometheus.child.pid ?? 0] },
      async figures(fromMs, toMs) {
        // From one interval before the window, so that every target's grid is known from a sample.
        const rangeSeconds = Math.ceil((toMs - fromMs) / 1000) + 2 * workload.everySeconds;
        const query = new URLSearchParams({
          query: `probe_success{job="blackbox"}[${rangeSeconds}s]`,
          time: String(toMs / 1000),
        });
        const answer = await within(
          'querying Prometheus for the probes of the window',
          QUERY_MS,
          fetch(`${prometheusUrl}/api/v1/query?${query.toString()}`).then((response) => response.json()),
        );
        const series = (answer as { data: { result: MatrixSeries[] } }).data.result.map((one) => ({
          target: one.metric.instance,
          samples: one.values.map(([at, value]) => ({ atMs: at * 1000, success: value === '1' })),
        }));
        const everyMs = workload.everySeconds * 1000;
        const { schedules, runs } = probesAsRuns(config.targets, series, everyMs);
        return {
          ...runFigures({ schedules, runs, fromMs, toMs }),
          note:
            `probe_success samples of the window's slots, each target's slots on the grid of its first ` +
            `sample; lateness is a scrape's start minus its slot (Prometheus aligns within 2 ms of it)`,
        };
      },
      diagnose: () => [
        describeChild('blackbox_exporter', blackbox.child, blackbox.readLog()),
        describeChild('prometheus', prometheus.child, prometheus.readLog()),
      ],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
