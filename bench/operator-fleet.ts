// The operator at fleet size (issue 39): N Monitors created on the kube tier's real control plane (etcd,
// kube-apiserver, kube-controller-manager), synced by the compiled `meerkat operator` into `meerkat dev` at the
// hub's default rate limits. It reports how long the creations took, how long until every Monitor was Synced at its
// generation, the operator's CPU and peak RSS, the hub's requests (and 4xx answers) and the API server's writes;
// then a steady-state window (writes a minute, which should be none) and how long one edit takes to reach the hub.
// Everything listens on loopback, every wait is bounded, everything started is stopped at the end.
// Usage: npm run bench:operator -- --monitors 1000 [--steady 120] [--sync-timeout 1800] [--settle-timeout 600]
//   [--cpu-profile-dir DIR] (the operator's CPU profile of the sync; read it with bench/profile/top-frames.ts)
//   [--operator-node-options=--max-semi-space-size=2] (the operator's NODE_OPTIONS, as operator.nodeOptions sets it)
//   [--heap-snapshot-dir DIR] (a heap snapshot of the operator at the end of the steady state, after its peak RSS)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { z } from 'zod';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
  type MonitorResource,
  type MonitorResourceStatus,
} from '../operator/src/monitor-resource-status.js';
import { freePort, startMeerkat, startMeerkatDev } from '../test/harness/processes.js';
import { findKubeBinaries } from '../test/kube/binaries.js';
import { startKubeCluster } from '../test/kube/start-cluster.js';
import { startBenchTarget } from './compare/bench-target.js';
import { within } from './compare/bounded.js';
import { buildCompiledCli } from './compiled-cli.js';
import { monitorResource, processUsage, runToExit } from './fleet-monitors.js';
import {
  childrenNamed,
  coresBetween,
  lastSyncedSeconds,
  queueDepthOf,
  startCpuSampler,
  syncTimeline,
} from './operator-timeline.js';

const NAMESPACE = 'bench-fleet';
const CREATE_CONCURRENCY = 25;
/** The operator's health sweep period, OPERATOR_STATUS_SECONDS as the chart leaves it. */
const STATUS_SECONDS = 60;
const say = (line: string) => process.stdout.write(`${line}\n`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const options = z
  .object({
    monitors: z.coerce.number().int().min(1).max(20_000),
    steady: z.coerce.number().int().min(10).max(3_600),
    'sync-timeout': z.coerce.number().int().min(60).max(7_200),
    'settle-timeout': z.coerce.number().int().min(0).max(7_200),
    workers: z.coerce.number().int().min(1).max(64),
    // A folder for a V8 CPU profile of the operator from the first creation until all are Synced.
    'cpu-profile-dir': z.string().min(1).optional(),
    // The operator's NODE_OPTIONS (V8 flags), as the chart's operator.nodeOptions sets them; none by default.
    'operator-node-options': z.string().default(''),
    // A folder for a heap snapshot of the operator once its peak RSS is read; its full collection tells the
    // reachable heap. Not with --cpu-profile-dir: both use SIGUSR2.
    'heap-snapshot-dir': z.string().min(1).optional(),
  })
  .refine((o) => o['heap-snapshot-dir'] === undefined || o['cpu-profile-dir'] === undefined, {
    message: '--heap-snapshot-dir and --cpu-profile-dir both use SIGUSR2: one at a time',
  })
  .parse(
    parseArgs({
      options: {
        monitors: { type: 'string', default: '1000' },
        steady: { type: 'string', default: '120' },
        'sync-timeout': { type: 'string', default: '1800' },
        'settle-timeout': { type: 'string', default: '600' },
        // OPERATOR_WORKERS as the chart leaves it (charts/meerkat/values.yaml, operator.workers).
        workers: { type: 'string', default: '64' },
        'cpu-profile-dir': { type: 'string' },
        'operator-node-options': { type: 'string', default: '' },
        'heap-snapshot-dir': { type: 'string' },
      },
    }).values,
  );

/**
 * The operator's NODE_OPTIONS (`nodeOptions`, V8 flags) and, with a folder, a CPU profile toggled by SIGUSR2 and
 * written there; nothing when neither is asked for.
 */
function operatorEnvironment(
  nodeOptions: string,
  folder: string | undefined,
  snapshotFolder: string | undefined,
): Record<string, string> {
  const preload =
    folder === undefined
      ? ''
      : `--import=${new URL('./profile/cpu-profile-on-signal.js', import.meta.url).pathname}`;
  const snapshot =
    snapshotFolder === undefined ? '' : `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshotFolder}`;
  const flags = [nodeOptions, preload, snapshot].filter((each) => each !== '').join(' ');
  return {
    ...(flags === '' ? {} : { NODE_OPTIONS: flags }),
    ...(folder === undefined ? {} : { CPU_PROFILE_DIR: folder }),
  };
}

/** The operator's V8 heap as its /metrics tells it (prom-client's default series), in MiB: `space used/size`. */
function describeHeap(text: string): string {
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const spaces = new Map<string, { used: number; size: number }>();
  for (const [metric, field] of [
    ['nodejs_heap_space_size_used_bytes', 'used'],
    ['nodejs_heap_space_size_total_bytes', 'size'],
  ] as const)
    for (const [space, bytes] of countsBy(text, metric, ['space'])) {
      const entry = spaces.get(space) ?? { used: 0, size: 0 };
      entry[field] = bytes;
      spaces.set(space, entry);
    }
  const bySpace = [...spaces]
    .filter(([, { size }]) => size >= 2 ** 20)
    .map(([space, { used, size }]) => `${space.replace('space=', '')} ${mib(used)}/${mib(size)}`)
    .join(', ');
  return (
    `RSS ${mib(sumOf(text, 'process_resident_memory_bytes'))} MiB; V8 heap used ${mib(sumOf(text, 'nodejs_heap_size_used_bytes'))}` +
    ` of ${mib(sumOf(text, 'nodejs_heap_size_total_bytes'))} MiB committed (by space, used/committed: ${bySpace}); ` +
    `external ${mib(sumOf(text, 'nodejs_external_memory_bytes'))} MiB`
  );
}

/** Sums the samples of `metric` whose labels pass `keep`, from a Prometheus text exposition. */
function sumOf(text: string, metric: string, keep: (labels: string) => boolean = () => true): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`) && !line.startsWith(`${metric} `)) continue;
    const labels = line.slice(metric.length, line.lastIndexOf(' '));
    if (keep(labels)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** The samples of `metric`, summed by the values of `labels` (`verb=LIST resource=monitors`), from an exposition. */
function countsBy(text: string, metric: string, labels: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const kind = labels
      .map((label) => `${label}=${new RegExp(`[{,]${label}="([^"]*)"`).exec(line)?.[1] ?? ''}`)
      .filter((each) => !each.endsWith('='))
      .join(' ');
    counts.set(kind, (counts.get(kind) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** `kind count (per Monitor)` for each kind that grew between two readings, the most first. */
function describeGrowth(before: Map<string, number>, after: Map<string, number>, monitors: number): string {
  return [...after]
    .map(([kind, count]) => [kind, count - (before.get(kind) ?? 0)] as const)
    .filter(([, grown]) => grown > 0)
    .sort(([, a], [, b]) => b - a)
    .map(([kind, grown]) => `${kind}: ${grown} (${(grown / monitors).toFixed(2)})`)
    .join('; ');
}

const WRITE_VERBS = /verb="(POST|PUT|PATCH|DELETE|APPLY)"/;
const OPERATORS_RESOURCES = /resource="(monitors|events)"/;

async function main(): Promise<void> {
  say(
    `machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}; ` +
      `${new Date().toISOString()}; ${options.monitors} Monitors, ${options.workers} workers`,
  );
  // The operator as the image runs it: the compiled build, not the sources through tsx.
  buildCompiledCli(say);
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const cluster = await within('starting the control plane', 180_000, startKubeCluster(findKubeBinaries()));
    stops.push(() => cluster.stop());
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cluster.info.kubeconfigPath);
    await installCrds(kubeConfig);
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });

    const target = await startBenchTarget();
    stops.push(() => target.stop());
    const dev = await startMeerkatDev();
    stops.push(() => dev.stop());
    const [metricsPort, healthPort] = [await freePort(), await freePort()];
    const operator = await startMeerkat(
      ['operator'],
      {
        KUBECONFIG: cluster.info.kubeconfigPath,
        MEERKAT_URL: dev.api,
        MEERKAT_API_KEY: dev.key,
        OPERATOR_LEADER_ELECTION: 'false',
        OPERATOR_WATCH_NAMESPACE: NAMESPACE,
        METRICS_PORT: String(metricsPort),
        HEALTH_PORT: String(healthPort),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        OPERATOR_STATUS_SECONDS: String(STATUS_SECONDS),
        OPERATOR_WORKERS: String(options.workers),
        ...operatorEnvironment(
          options['operator-node-options'],
          options['cpu-profile-dir'],
          options['heap-snapshot-dir'],
        ),
      },
      /controller started/,
      120_000,
    );
    stops.push(() => operator.stop());
    const pid = operator.child.pid ?? 0;

    const api = kubeConfig.makeApiClient(CustomObjectsApi);
    const monitors = {
      group: MONITOR_GROUP,
      version: MONITOR_VERSION,
      plural: MONITOR_PLURAL,
      namespace: NAMESPACE,
    };
    const counters = async () => {
      const apiserver = await scrapeApiServer(cluster.info);
      const hub = await (await fetch(dev.metricsUrl)).text();
      const requests = 'meerkat_http_request_duration_seconds_count';
      return {
        apiserverByKind: countsBy(apiserver, 'apiserver_request_total', ['verb', 'resource', 'subresource']),
        // By answer class too, so a 4xx names its route (session 24 saw one at 5,000 Monitors and could not).
        hubByKind: countsBy(hub, requests, ['method', 'route', 'status_class']),
        apiserverWrites: sumOf(
          apiserver,
          'apiserver_request_total',
          (l) => WRITE_VERBS.test(l) && OPERATORS_RESOURCES.test(l),
        ),
        hubRequests: sumOf(hub, requests),
        hubRefused: sumOf(hub, requests, (l) => l.includes('status_class="4xx"')),
        hubWrites: sumOf(hub, requests, (l) => !l.includes('method="GET"')),
        // Checks the hub started (each one's lateness observed once): the synced Monitors' runs in its process.
        hubRuns: sumOf(hub, 'meerkat_run_schedule_delay_seconds_count'),
      };
    };

    const before = await counters();
    // The profiler's toggle (bench/profile/cpu-profile-on-signal.js): started here, written once all are Synced.
    if (options['cpu-profile-dir'] !== undefined) process.kill(pid, 'SIGUSR2');
    // Each process's CPU every 5 s from the first creation until all are Synced, for the timeline below.
    const sampler = startCpuSampler(
      new Map([
        ...childrenNamed(['kube-apiserver', 'etcd']),
        ['hub', dev.process.child.pid ?? 0],
        ['operator', pid],
      ]),
      async () => queueDepthOf(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()),
    );
    const started = Date.now();
    const names = Array.from({ length: options.monitors }, (_, i) => `fleet-${String(i).padStart(5, '0')}`);
    for (let from = 0; from < names.length; from += CREATE_CONCURRENCY)
      await Promise.all(
        names.slice(from, from + CREATE_CONCURRENCY).map((name) =>
          api.createNamespacedCustomObject({
            ...monitors,
            body: monitorResource(name, target.url, NAMESPACE),
          }),
        ),
      );
    const appliedSeconds = (Date.now() - started) / 1000;
    say(`created ${names.length} Monitors in ${appliedSeconds.toFixed(0)} s; waiting until all are Synced`);

    const allSynced = async () => {
      const { items } = (await api.listNamespacedCustomObject(monitors)) as { items: MonitorResource[] };
      const synced = items.filter(
        (item) =>
          item.status?.observedGeneration === item.metadata.generation &&
          item.status?.conditions?.some((c) => c.type === 'Synced' && c.status === 'True'),
      ).length;
      // A refusal will not heal by waiting: say it at once.
      const refused = items
        .flatMap((item) => item.status?.conditions ?? [])
        .find((c) => c.type === 'Synced' && c.status === 'False' && c.reason !== 'HubUnreachable');
      if (refused) throw new Error(`a Monitor is not Synced: ${refused.reason}: ${refused.message}`);
      return { synced, items };
    };
    const statusesOf = async () => {
      const { items } = (await api.listNamespacedCustomObject(monitors)) as { items: MonitorResource[] };
      return new Map(items.map((item) => [item.metadata.name, item.status ?? {}] as const));
    };
    const deadline = started + options['sync-timeout'] * 1000;
    let last = { synced: 0, items: [] as MonitorResource[] };
    while (Date.now() < deadline) {
      last = await allSynced();
      if (last.synced === names.length) break;
      await pause(names.length > 2_000 ? 10_000 : 2_000);
    }
    const syncedSeconds = (Date.now() - started) / 1000;
    const atSync = { ...(await counters()), ...processUsage(pid) };
    if (options['cpu-profile-dir'] !== undefined) process.kill(pid, 'SIGUSR2');
    const cpuSamples = sampler.stop();
    if (last.synced !== names.length)
      throw new Error(`only ${last.synced} of ${names.length} Synced after ${options['sync-timeout']} s`);
    say(`all Synced ${syncedSeconds.toFixed(0)} s after the first creation (the bench's listing saw it)`);
    sayTimeline(last.items, started, appliedSeconds, cpuSamples);
    // Where the sync's requests went, by kind (the bench's own creations and listings included), and per Monitor.
    say(
      `API server requests by kind: ${describeGrowth(before.apiserverByKind, atSync.apiserverByKind, names.length)}`,
    );
    say(`hub requests by kind: ${describeGrowth(before.hubByKind, atSync.hubByKind, names.length)}`);
    say(`checks the hub started during the sync: ${atSync.hubRuns - before.hubRuns}`);

    // Each Monitor's first run lands after its sync and moves its health once (a status write, a metrics read):
    // the steady state starts when every Monitor shows its first run and one more health sweep has passed.
    const settleDeadline = Date.now() + options['settle-timeout'] * 1000;
    let withRun = 0;
    while (Date.now() < settleDeadline) {
      const { items } = (await api.listNamespacedCustomObject(monitors)) as { items: MonitorResource[] };
      withRun = items.filter((item) => item.status?.lastRun !== undefined).length;
      if (withRun === names.length) break;
      await pause(10_000);
    }
    const settled = withRun === names.length;
    say(
      `${withRun} of ${names.length} Monitors show their first run; one more health sweep (${STATUS_SECONDS} s)`,
    );
    if (options['settle-timeout'] > 0) await pause(STATUS_SECONDS * 1000);

    // Steady state: nothing changes, so nothing should be written.
    say(`steady state: ${options.steady} s`);
    const atSettled = await counters();
    const statusesBefore = await statusesOf();
    await pause(options.steady * 1000);
    const atSteady = { ...(await counters()), ...processUsage(pid) };
    // What the operator's memory is made of at the end of the steady state (issue 39: RSS at most 256 MiB).
    const operatorMetrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    say(`operator memory at the end of the steady state: ${describeHeap(operatorMetrics)}`);
    const snapshotFolder = options['heap-snapshot-dir'];
    if (snapshotFolder !== undefined) {
      process.kill(pid, 'SIGUSR2');
      const written = await within('the heap snapshot', 300_000, untilSnapshotWritten(snapshotFolder));
      // The snapshot begins with a full collection: what the heap holds right after it is about what is reachable.
      const afterSnapshot = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      say(
        `operator memory after the heap snapshot's full collection (${written}): ${describeHeap(afterSnapshot)}`,
      );
    }
    // What a write at rest changed: the status fields that differ, counted over the Monitors written.
    say(`steady state, status fields that moved: ${describeMoves(statusesBefore, await statusesOf())}`);
    const steadyKinds = (key: 'apiserverByKind' | 'hubByKind') =>
      describeGrowth(atSettled[key], atSteady[key], names.length) || 'none';
    say(
      `steady state, API server requests by kind (the bench's own listings included): ${steadyKinds('apiserverByKind')}`,
    );
    say(`steady state, hub requests by kind: ${steadyKinds('hubByKind')}`);
    const perMinute = (key: 'apiserverWrites' | 'hubWrites' | 'hubRequests') =>
      ((atSteady[key] - atSettled[key]) * 60) / options.steady;

    // One edit, with the fleet idle: how long until the hub holds it.
    const edited = last.items[Math.floor(last.items.length / 2)]!;
    const editStarted = Date.now();
    await api.patchNamespacedCustomObject(
      { ...monitors, name: edited.metadata.name, body: { spec: { frequency: { every: 2, unit: 'HOUR' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const editSeconds = await within(
      'the edit reaching the hub',
      600_000,
      untilHubHolds(dev, edited.metadata.uid),
    );
    const editLatency = (editSeconds - editStarted) / 1000;

    say('');
    say(
      '| Monitors | created in | all Synced after | operator CPU, peak RSS | hub requests (4xx) | apiserver writes (Monitors, Events) | steady state a minute: apiserver writes, hub writes, hub requests | an edit reaches the hub |',
    );
    say('|---|---|---|---|---|---|---|---|');
    say(
      `| ${names.length} | ${appliedSeconds.toFixed(0)} s | **${syncedSeconds.toFixed(0)} s** | ` +
        `${atSync.cpuSeconds.toFixed(1)} s, ${atSteady.peakRssMiB.toFixed(0)} MiB | ` +
        `${atSync.hubRequests - before.hubRequests} (${atSync.hubRefused - before.hubRefused}) | ` +
        `${atSync.apiserverWrites - before.apiserverWrites} | ` +
        `${perMinute('apiserverWrites').toFixed(1)}, ${perMinute('hubWrites').toFixed(1)}, ${perMinute('hubRequests').toFixed(1)} | ` +
        `${editLatency.toFixed(1)} s |`,
    );
    say('');
    say(
      `(apiserver writes include the ${names.length} creations; the operator's CPU is at the moment all were ` +
        `Synced, its peak RSS at the end of the steady state; the steady state began ` +
        `${settled ? 'once every Monitor showed its first run' : `with only ${withRun} showing their first run`})`,
    );
  } finally {
    for (const stop of stops.reverse()) await within('stopping', 60_000, stop()).catch(() => {});
  }
}

/**
 * Created and Synced by 5 s step, against each process's cores in that step; and when the last Monitor became
 * Synced by its own condition (to the second, not to the bench's polling period).
 */
function sayTimeline(
  items: readonly MonitorResource[],
  started: number,
  appliedSeconds: number,
  samples: Parameters<typeof coresBetween>[0],
): void {
  const last = lastSyncedSeconds(items, started);
  if (last !== undefined)
    say(
      `by the Synced conditions: all Synced ${last.toFixed(0)} s after the first creation, ` +
        `${(last - appliedSeconds).toFixed(0)} s after the last`,
    );
  const cores = coresBetween(samples);
  const names = Object.keys(cores[0]?.cores ?? {});
  say(`| s | created | Synced | operator's queue | cores: ${names.join(', ')} |`);
  say('|---|---|---|---|---|');
  for (const [index, row] of syncTimeline(items, started).entries()) {
    const step = cores[index];
    const used = step ? names.map((name) => (step.cores[name] ?? 0).toFixed(2)).join(', ') : '';
    say(`| ${row.at} | ${row.created} | ${row.synced} | ${step?.queued ?? ''} | ${used} |`);
  }
}

/** `field (Monitors)` for each status field, condition by condition, that differs between two listings; or `none`. */
function describeMoves(
  before: Map<string, MonitorResourceStatus>,
  after: Map<string, MonitorResourceStatus>,
): string {
  const moved = new Map<string, number>();
  const flatten = (status: MonitorResourceStatus | undefined) => {
    const { conditions, ...rest } = status ?? {};
    const fields = new Map(Object.entries(rest).map(([key, value]) => [key, JSON.stringify(value)]));
    for (const condition of conditions ?? [])
      fields.set(`conditions.${condition.type}`, JSON.stringify(condition));
    return fields;
  };
  for (const [name, status] of after) {
    const [was, now] = [flatten(before.get(name)), flatten(status)];
    for (const key of new Set([...was.keys(), ...now.keys()]))
      if (was.get(key) !== now.get(key)) moved.set(key, (moved.get(key) ?? 0) + 1);
  }
  const parts = [...moved].sort(([, a], [, b]) => b - a).map(([key, count]) => `${key} (${count})`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** Creates every CRD of crds/ (Monitors and MaintenanceWindows, both watched), as `kubectl apply -f crds/` does. */
async function installCrds(kubeConfig: KubeConfig): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const folder = new URL('../crds/', import.meta.url);
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.yaml'))) {
    const body = parse(readFileSync(new URL(file, folder), 'utf8')) as V1CustomResourceDefinition;
    await api.createCustomResourceDefinition({ body });
    for (let attempt = 0; ; attempt += 1) {
      const crd = await api.readCustomResourceDefinition({ name: body.metadata?.name ?? '' });
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (attempt === 100) throw new Error(`${file} did not become Established within 20 s`);
      await pause(200);
    }
  }
}

/** The API server's own metrics, read with the admin token over TLS checked against the cluster's CA. */
function scrapeApiServer(info: {
  serverUrl: string;
  adminToken: string;
  caCertPath: string;
}): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpsGet(
      `${info.serverUrl}/metrics`,
      {
        headers: { authorization: `Bearer ${info.adminToken}` },
        ca: readFileSync(info.caCertPath),
        timeout: 30_000,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve(text));
        response.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error('the API server’s metrics did not answer in 30 s')),
    );
    request.on('error', reject);
  });
}

/** The heap snapshot's file in `folder` once its size stops changing for 5 s. */
async function untilSnapshotWritten(folder: string): Promise<string> {
  let last = '';
  for (;;) {
    await pause(5_000);
    const file = readdirSync(folder).find((name) => name.endsWith('.heapsnapshot'));
    if (file === undefined) continue;
    const now = `${file}, ${(statSync(join(folder, file)).size / 2 ** 20).toFixed(0)} MiB`;
    if (now === last) return now;
    last = now;
  }
}

async function untilHubHolds(dev: { api: string; key: string }, id: string): Promise<number> {
  for (;;) {
    const answer = await fetch(`${dev.api}/monitor/${id}`, {
      headers: { authorization: `Bearer ${dev.key}` },
    });
    const body = (await answer.json()) as { data?: { frequency?: { every: number; unit: string } } };
    if (body.data?.frequency?.every === 2 && body.data.frequency.unit === 'HOUR') return Date.now();
    await pause(100);
  }
}

await runToExit(main, say);
