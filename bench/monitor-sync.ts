// The hub's share of a fleet sync (issue 39): `meerkat dev` (PGlite in its process) as the operator meets it, sent
// N Monitors as the operator sends them: the body its own definitionFor() builds from each Monitor resource (the
// resource's uid as the id), in `POST /monitor/bulk` requests of `--bulk-size` items, `--concurrency` in flight
// (the operator's put batcher keeps one in flight; its batches held about 7 at 10,000 Monitors, session 26). Then
// the same N again unchanged, in the same bulks, and then the first `--puts` as `PUT /monitor/{id}` one by one.
// For each pass: the hub process's CPU (user + system, its children included, from /proc) per Monitor, and the
// wall time. No Kubernetes: the API server's and the operator's shares are bench:operator's. Everything listens
// on loopback, every wait is bounded, the hub is stopped at the end.
// Usage: npm run bench:monitor-sync -- [--monitors 1000] [--bulk-size 7] [--concurrency 1] [--puts 1000]
//   [--cpu-profile FILE] (a V8 CPU profile of the hub over the creations; read it with bench/profile/top-frames.ts)
import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createHubClient } from '../hub/src/client/hub-client.js';
import type { MonitorDefinition } from '../hub/src/contract/monitor-definition.js';
import { definitionFor } from '../operator/src/monitor-sync.js';
import type { MonitorResource } from '../operator/src/monitor-resource-status.js';
import { parseProjectPolicy } from '../operator/src/project-tenancy.js';
import { startMeerkatDev } from '../test/harness/processes.js';
import { within } from './compare/bounded.js';
import { machineLine } from './compare/machine.js';
import { buildCompiledCli } from './compiled-cli.js';
import { monitorResource, runToExit } from './fleet-monitors.js';
import { processTreeCpuSeconds } from './process-cpu.js';

const NAMESPACE = 'bench-fleet';
/** Daily: no Monitor's first run falls in the bench's window, so the hub's CPU is its sync's. */
const FREQUENCY = { every: 1, unit: 'DAY' } as const;
/** Nothing listens there: the Monitors never run within the bench. */
const TARGET = 'http://127.0.0.1:9';
const PASS_MS = 1_800_000;
const say = (line: string) => process.stdout.write(`${line}\n`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const options = z
  .object({
    monitors: z.coerce.number().int().min(1).max(20_000),
    'bulk-size': z.coerce.number().int().min(1).max(100),
    concurrency: z.coerce.number().int().min(1).max(64),
    // The PUT pass's share: PUTs go one a request, so the hub's rate limit (20 a second) makes them slow.
    puts: z.coerce.number().int().min(0).max(20_000),
    'cpu-profile': z.string().min(1).optional(),
  })
  .parse(
    parseArgs({
      options: {
        monitors: { type: 'string', default: '1000' },
        'bulk-size': { type: 'string', default: '7' },
        concurrency: { type: 'string', default: '1' },
        puts: { type: 'string', default: '1000' },
        'cpu-profile': { type: 'string' },
      },
    }).values,
  );

type Item = { id: string; definition: MonitorDefinition };

/** The fleet as the operator puts it: each Monitor's hub body, by the operator's own code, under its uid. */
function fleet(count: number): Item[] {
  const deps = { projects: parseProjectPolicy(''), clusterName: 'bench' };
  return Array.from({ length: count }, (_, i) => {
    const name = `fleet-${String(i).padStart(5, '0')}`;
    const uid = crypto.randomUUID();
    const resource = {
      ...monitorResource(name, TARGET, NAMESPACE, FREQUENCY),
      metadata: { name, namespace: NAMESPACE, uid, generation: 1 },
    } as unknown as MonitorResource;
    return { id: uid, definition: definitionFor(resource, deps) };
  });
}

/** Runs `work` over `parts`, `concurrency` at a time, each taking the next part when it is done. */
async function inTurn<T>(parts: T[], concurrency: number, work: (part: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < parts.length) await work(parts[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, parts.length) }, lane));
}

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  );
}

async function main(): Promise<void> {
  say(
    `${machineLine()}; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${options.monitors} Monitors, bulks of ` +
      `${options['bulk-size']}, ${options.concurrency} in flight`,
  );
  buildCompiledCli(say);
  const profileDir =
    options['cpu-profile'] === undefined ? undefined : mkdtempSync(join(tmpdir(), 'hub-prof-'));
  const preload = new URL('./profile/cpu-profile-on-signal.js', import.meta.url).pathname;
  const dev = await startMeerkatDev(
    profileDir === undefined ? {} : { NODE_OPTIONS: `--import=${preload}`, CPU_PROFILE_DIR: profileDir },
    120_000,
  );
  try {
    const pid = dev.process.child.pid ?? 0;
    const hub = createHubClient(dev.api, dev.key, { timeoutMs: 120_000 });
    const items = fleet(options.monitors);
    const refused: string[] = [];
    const bulk = async (batch: Item[], expected: number) => {
      const outcomes = await hub.putMonitors(batch);
      for (const outcome of outcomes) if (outcome instanceof Error) refused.push(outcome.message);
      if (outcomes.length !== expected) throw new Error(`${outcomes.length} results for ${expected} items`);
    };
    // Let the hub's start settle, so its CPU in a pass is the pass's.
    await pause(5_000);
    const rows: string[] = [];
    const pass = async (name: string, count: number, work: () => Promise<void>, profile = false) => {
      if (profile && profileDir !== undefined) process.kill(pid, 'SIGUSR2');
      const [cpu, started] = [processTreeCpuSeconds(pid), Date.now()];
      await within(name, PASS_MS, work());
      const [seconds, used] = [(Date.now() - started) / 1000, processTreeCpuSeconds(pid) - cpu];
      if (profile && profileDir !== undefined) process.kill(pid, 'SIGUSR2');
      if (refused.length > 0) throw new Error(`${refused.length} refused in ${name}, first: ${refused[0]}`);
      say(`${name}: ${seconds.toFixed(1)} s, hub CPU ${used.toFixed(2)} s`);
      rows.push(
        `| ${name} | ${count} | ${seconds.toFixed(1)} s | ${used.toFixed(2)} s | ` +
          `**${((used * 1000) / count).toFixed(2)} ms** |`,
      );
    };
    const batches = chunks(items, options['bulk-size']);
    await pass(
      'create (bulk)',
      items.length,
      () => inTurn(batches, options.concurrency, (b) => bulk(b, b.length)),
      true,
    );
    await pass('unchanged (bulk)', items.length, () =>
      inTurn(batches, options.concurrency, (b) => bulk(b, b.length)),
    );
    const puts = items.slice(0, options.puts);
    await pass('unchanged (PUT)', puts.length, () =>
      inTurn(
        puts,
        options.concurrency,
        async ({ id, definition }) => void (await hub.putMonitor(id, definition)),
      ),
    );
    const listed = await hub.listMonitors({ project: NAMESPACE });
    if (listed.length !== options.monitors)
      throw new Error(`the hub lists ${listed.length} of ${options.monitors} Monitors`);
    if (profileDir !== undefined && options['cpu-profile'] !== undefined) {
      const written = await within('the CPU profile', 60_000, untilProfile(profileDir));
      renameSync(join(profileDir, written), options['cpu-profile']);
      say(`hub CPU profile of the creations: ${options['cpu-profile']}`);
    }
    say('');
    say('| pass | Monitors | wall | hub CPU | hub CPU a Monitor |');
    say('|---|---|---|---|---|');
    for (const row of rows) say(row);
  } finally {
    await within('stopping meerkat dev', 60_000, dev.stop()).catch(() => {});
    if (profileDir !== undefined) rmSync(profileDir, { recursive: true, force: true });
  }
}

async function untilProfile(folder: string): Promise<string> {
  for (;;) {
    const file = readdirSync(folder).find((name) => name.endsWith('.cpuprofile'));
    if (file !== undefined) return file;
    await pause(500);
  }
}

await runToExit(main, say);
