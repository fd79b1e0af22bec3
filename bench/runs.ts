// The runs benchmark (`npm run bench -- --monitors 10000 --every 60 --duration 120`): N monitors every T
// seconds against a local HTTP target, executed by the real scheduler and worker on BullMQ, PostgreSQL and
// Redis. Reports sustained runs/s, schedule drift (actual start minus due time), CPU seconds per 1,000 runs
// for Meerkat and for PostgreSQL and Redis, and peak RSS, next to the raw HTTP rate of the same target; then what
// the window's runs added on disk, per table and per run, and the WAL they wrote (bench/storage.ts).
import { spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { loadSettings } from '../hub/src/config/settings.js';
import { monitorDefinitionSchema } from '../hub/src/contract/monitor-definition.js';
import { egressPoliciesOf } from '../hub/src/egress/egress-policies.js';
import { createMonitorService } from '../hub/src/monitors/monitor.service.js';
import { scheduleDependant } from '../hub/src/scheduling/schedule-dependant.js';
import { startScheduler } from '../hub/src/server/start-scheduler.js';
import { openComponents } from '../hub/src/server/components.js';
import { startWorker } from '../hub/src/server/start-worker.js';
import { runFinishedHooks } from '../hub/src/server/run-finished-hooks.js';
import { createInProcessDeliveryQueue } from '../hub/src/notifications/in-process-delivery-queue.js';
import { ruleEvaluationHook } from '../hub/src/notifications/rule-evaluation-hook.js';
import { MeerkatRegistry } from '../hub/src/system/metrics-registry.js';
import { startTestServices } from '../test/harness/global-setup.js';
import { processTreeCpuSeconds } from './process-cpu.js';
import { foldPassingRuns } from '../hub/src/scheduling/run-fold.js';
import { foldReport, storageReport, storageSnapshot } from './storage.js';

const { values } = parseArgs({
  options: {
    monitors: { type: 'string', default: '10000' },
    every: { type: 'string', default: '60' },
    duration: { type: 'string', default: '120' },
    // Seconds between the start of the checks and the window; one interval by default. Longer, the window holds a
    // steady state: no monitor's first run, nor its first compacted run of the hour (docs/adr/0083).
    warmup: { type: 'string' },
    concurrency: { type: 'string', default: '100' },
    // RUN_DETAILS_KEEP_MINUTES and RUN_DETAILS_KEEP_LATEST of the scheduler (the hub's defaults when absent).
    'keep-minutes': { type: 'string' },
    'keep-latest': { type: 'string' },
    // RUN_DETAILS_AT_INSERT of the worker: `compact-unchanged` inserts passing runs of unchanged outcome compacted.
    'details-at-insert': { type: 'string' },
    // After the window, fold the compacted runs as the scheduler will once their hour is RUN_FOLD_AFTER_MINUTES
    // past (docs/adr/0061), and report what the folds cost (bench/storage.ts).
    'fold-at-end': { type: 'boolean', default: false },
    // What the target answers: `small` (31 bytes of JSON, the default) or `api` (about 1.6 KB of a JSON API's answer,
    // of which a run keeps the first 1 KiB: a row past PostgreSQL's 2 KB toast threshold, docs/adr/0087).
    'target-body': { type: 'string', default: 'small' },
  },
});
const monitors = Number(values.monitors);
const everySeconds = Number(values.every);
const durationSeconds = Number(values.duration);
const warmupSeconds = values.warmup === undefined ? everySeconds : Number(values.warmup);
if (!Number.isFinite(warmupSeconds) || warmupSeconds < 0 || warmupSeconds > 3600) {
  throw new Error(`--warmup: ${values.warmup} is not a number of seconds from 0 to 3600`);
}
const concurrency = Number(values.concurrency);
const targetBody = values['target-body'] ?? 'small';
if (targetBody !== 'small' && targetBody !== 'api')
  throw new Error(`--target-body: ${targetBody} is not small or api`);
const log = pino({ level: 'warn' });
const say = (line: string) => process.stdout.write(`${line}\n`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function startTarget(): Promise<{ url: string; stop(): void; pid: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('./target.ts', import.meta.url).pathname],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_TARGET_BODY: targetBody } },
  );
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM'), pid: child.pid ?? 0 };
}

async function rawHttpRate(url: string): Promise<number> {
  const result = await autocannon({ url: `${url}/ok`, connections: 50, duration: 10 });
  return result.requests.average;
}

const services = await startTestServices();
const target = await startTarget();
try {
  say(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  );
  const raw = await rawHttpRate(target.url);
  say(`raw HTTP rate of the target (autocannon, 50 connections, 10 s): ${Math.round(raw)} requests/s`);

  const settings = loadSettings(
    {
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      SECRETS_KEY: 'ab'.repeat(32),
      LOCATIONS: 'default',
      LOG_LEVEL: 'warn',
      REAPER_INTERVAL_SECONDS: '30',
      // The bench target listens on loopback, which a worker refuses unless allowed (docs/egress.md).
      EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
      ...(values['keep-minutes'] === undefined ? {} : { RUN_DETAILS_KEEP_MINUTES: values['keep-minutes'] }),
      ...(values['keep-latest'] === undefined ? {} : { RUN_DETAILS_KEEP_LATEST: values['keep-latest'] }),
      ...(values['details-at-insert'] === undefined
        ? {}
        : { RUN_DETAILS_AT_INSERT: values['details-at-insert'] }),
    },
    'worker',
  );
  const components = await openComponents(settings, log, {
    migrate: true,
    secretsKey: settings.SECRETS_KEY ?? '',
  });

  const service = createMonitorService({
    db: components.db,
    clock: { now: () => new Date() },
    locations: ['default'],
    egress: egressPoliciesOf(settings),
    dependants: [scheduleDependant],
  });
  const created = Date.now();
  for (let i = 0; i < monitors; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, monitors - i) }, (_, j) =>
        service.upsert('bench', `m-${i + j}`, monitorDefinitionSchema.parse(benchMonitor(target.url, i + j))),
      ),
    );
  }
  say(`created ${monitors} monitors in ${((Date.now() - created) / 1000).toFixed(1)} s`);

  const drift: number[] = [];
  let measuring = false;
  const scheduler = await startScheduler({ settings, log, components });
  const worker = startWorker({
    settings,
    log,
    components,
    locations: ['default'],
    concurrency,
    // The hooks a `meerkat worker` records each result with: rollups, latest runs, rules, run counters.
    hooks: runFinishedHooks(
      new MeerkatRegistry('worker'),
      ruleEvaluationHook(createInProcessDeliveryQueue()),
      {
        db: components.db,
        locations: ['default'],
      },
    ),
    onScheduledStart: (ms) => void (measuring && drift.push(ms)),
  });
  say(`scheduler and worker started; warming up for ${warmupSeconds} s`);
  await sleep(warmupSeconds * 1000);

  const storageBefore = await storageSnapshot(components.db);
  measuring = true;
  const windowStart = new Date();
  const cpuBefore = process.cpuUsage();
  const pgBefore = services.pids.postgres ? processTreeCpuSeconds(services.pids.postgres) : Number.NaN;
  const redisBefore = services.pids.redis ? processTreeCpuSeconds(services.pids.redis) : Number.NaN;
  let peakRss = 0;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 1000);
  await sleep(durationSeconds * 1000);
  clearInterval(rssTimer);
  measuring = false;
  const storageAfter = await storageSnapshot(components.db);
  const cpu = process.cpuUsage(cpuBefore);
  const meerkatCpu = (cpu.user + cpu.system) / 1e6;
  const pgCpu = services.pids.postgres
    ? processTreeCpuSeconds(services.pids.postgres) - pgBefore
    : Number.NaN;
  const redisCpu = services.pids.redis
    ? processTreeCpuSeconds(services.pids.redis) - redisBefore
    : Number.NaN;
  const finished = await components.db
    .selectFrom('runs')
    .select((eb) => [
      eb.fn.countAll<string>().as('total'),
      eb.fn.sum<string>(eb.case().when('success', '=', true).then(1).else(0).end()).as('ok'),
    ])
    .where('completed_at', '>=', windowStart)
    .executeTakeFirstOrThrow();
  const runs = Number(finished.total);
  const sorted = drift.sort((a, b) => a - b);
  const per1000 = (seconds: number) => ((seconds / runs) * 1000).toFixed(2);

  say('');
  say(
    `| monitors | every | window | runs | runs/s | successful | drift p50 | drift p99 | Meerkat CPU s / 1000 runs | PostgreSQL CPU s / 1000 runs | Redis CPU s / 1000 runs | peak RSS |`,
  );
  say(`|---|---|---|---|---|---|---|---|---|---|---|---|`);
  say(
    `| ${monitors} | ${everySeconds} s | ${durationSeconds} s | ${runs} | ${(runs / durationSeconds).toFixed(1)} | ${finished.ok} | ${percentile(sorted, 50)} ms | ${percentile(sorted, 99)} ms | ${per1000(meerkatCpu)} | ${per1000(pgCpu)} | ${per1000(redisCpu)} | ${Math.round(peakRss / 2 ** 20)} MiB |`,
  );
  say(`expected runs in the window: ${Math.round((monitors * durationSeconds) / everySeconds)}`);
  say('');
  for (const line of await storageReport(
    components.db,
    storageBefore,
    storageAfter,
    runs,
    services.databaseUrl,
  ))
    say(line);

  await worker.close();
  await scheduler.close();
  if (values['fold-at-end']) {
    // A clock a day and an hour ahead: every compacted run's hour ended more than the default day ago.
    const later = new Date(Date.now() + settings.RUN_FOLD_AFTER_MINUTES * 60_000 + 3_600_000);
    say('');
    const fold = async () =>
      (
        await foldPassingRuns({
          db: components.db,
          clock: { now: () => later },
          foldAfterMinutes: settings.RUN_FOLD_AFTER_MINUTES,
          details: {
            keepLatest: settings.RUN_DETAILS_KEEP_LATEST,
            keepMinutes: settings.RUN_DETAILS_KEEP_MINUTES,
          },
        })
      ).folded;
    for (const line of await foldReport(components.db, services.databaseUrl, fold)) say(line);
  }
  await components.close();
} finally {
  target.stop();
  await services.stop();
}

function benchMonitor(base: string, index: number) {
  return {
    project: 'bench',
    name: `monitor-${index}`,
    version: '1.0',
    frequency: { every: everySeconds / 60, unit: 'MINUTE' },
    nodes: [
      { id: 'get', type: 'HTTP_REQUEST', method: 'GET', base, path: '/ok', response_format: 'JSON' },
      {
        id: 'check',
        type: 'ASSERTION',
        assertions: [
          {
            nodeId: 'get',
            subject: 'status',
            predicate: { type: 'binary', operator: 'EQUAL', expected: 200 },
          },
          {
            nodeId: 'get',
            subject: 'body',
            path: '$.status',
            predicate: { type: 'binary', operator: 'EQUAL', expected: 'ok' },
          },
        ],
      },
    ],
    edges: [{ from: 'get', to: 'check' }],
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
