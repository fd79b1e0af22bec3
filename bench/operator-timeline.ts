// Where a fleet sync's time goes (issue 39): the Monitors created and Synced by each step since the first creation,
// and the CPU each process of the stack used in that step. The Synced counts come from one listing at the end, from
// each Monitor's `creationTimestamp` and its Synced condition's `lastTransitionTime` (whole seconds, both stamped on
// this machine), so the bench does not list 10,000 Monitors every few seconds to draw it, and the moment the last
// one was Synced is known to the second rather than to the bench's polling period.
import { readdirSync, readFileSync } from 'node:fs';
import type { MonitorResource } from '../operator/src/monitor-resource-status.js';
import { processTreeCpuSeconds } from './process-cpu.js';

/** The operator's `meerkat_operator_queue_depth` from its /metrics text (with the registry's default labels). */
export function queueDepthOf(text: string): number {
  const value = /^meerkat_operator_queue_depth(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
  return value === undefined ? Number.NaN : Number(value);
}

export interface TimelineRow {
  /** Seconds since the first creation, the end of the step. */
  at: number;
  created: number;
  synced: number;
}

/** A listed Monitor: the API server's items carry `creationTimestamp`, which the operator's type leaves out. */
type Stamped = Pick<MonitorResource, 'status'> & {
  metadata: MonitorResource['metadata'] & { creationTimestamp?: string };
};

/** When the Monitor became Synced (ms since the epoch), or undefined while it is not. */
export function syncedAtMs(item: Stamped): number | undefined {
  const synced = item.status?.conditions?.find((c) => c.type === 'Synced' && c.status === 'True');
  if (synced?.lastTransitionTime === undefined) return undefined;
  if (item.status?.observedGeneration !== item.metadata.generation) return undefined;
  return Date.parse(synced.lastTransitionTime);
}

/**
 * Created and Synced counts at the end of each `stepSeconds` since `startedMs` (the first creation), until all
 * listed are Synced. The API server stamps whole seconds: a Monitor stamped within the step's second counts in it.
 */
export function syncTimeline(items: readonly Stamped[], startedMs: number, stepSeconds = 5): TimelineRow[] {
  const created = items
    .map((item) => Date.parse(item.metadata.creationTimestamp ?? ''))
    .filter(Number.isFinite);
  const synced = items.map(syncedAtMs).filter((at): at is number => at !== undefined);
  const last = Math.max(startedMs, ...created, ...synced);
  const rows: TimelineRow[] = [];
  const startSecond = Math.floor(startedMs / 1000) * 1000;
  for (let at = stepSeconds; ; at += stepSeconds) {
    const end = startSecond + at * 1000;
    rows.push({
      at,
      created: created.filter((stamp) => stamp < end).length,
      synced: synced.filter((stamp) => stamp < end).length,
    });
    if (end > last) return rows;
  }
}

/** Seconds from `startedMs` until the last listed Monitor became Synced (whole seconds, from its condition). */
export function lastSyncedSeconds(items: readonly Stamped[], startedMs: number): number | undefined {
  const stamps = items.map(syncedAtMs);
  if (stamps.length === 0 || stamps.some((at) => at === undefined)) return undefined;
  return (Math.max(...(stamps as number[])) + 1000 - startedMs) / 1000;
}

/** The pids of this process's children whose command is one of `names` (`/proc/<pid>/comm`, 15 characters). */
export function childrenNamed(names: readonly string[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (ppid === process.pid && names.includes(comm)) found.set(comm, pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

export interface CpuSample {
  /** Seconds since the sampler started. */
  at: number;
  /** Cumulative CPU seconds by process name. */
  cpu: Record<string, number>;
  /** The operator's queue depth then (keys waiting for a worker), once its /metrics answered. */
  queued?: number;
}

/**
 * Every `everyMs`, each named process tree's CPU (and this process's own, as `bench`) and what `queued()` reads;
 * bounded by `stop()`.
 */
export function startCpuSampler(
  pids: ReadonlyMap<string, number>,
  queued: () => Promise<number> = () => Promise.resolve(Number.NaN),
  everyMs = 5_000,
) {
  const started = Date.now();
  const samples: CpuSample[] = [];
  const take = () => {
    const cpu: Record<string, number> = {};
    for (const [name, pid] of pids) cpu[name] = processTreeCpuSeconds(pid);
    const own = process.cpuUsage();
    cpu.bench = (own.user + own.system) / 1e6;
    const sample: CpuSample = { at: (Date.now() - started) / 1000, cpu };
    samples.push(sample);
    queued().then(
      (depth) => (sample.queued = depth),
      () => {},
    );
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** The cores each process used between consecutive samples, for the timeline's table. */
export function coresBetween(
  samples: readonly CpuSample[],
): Array<{ at: number; cores: Record<string, number>; queued?: number }> {
  return samples.slice(1).map((sample, index) => {
    const previous = samples[index]!;
    const seconds = sample.at - previous.at || 1;
    const cores: Record<string, number> = {};
    for (const [name, total] of Object.entries(sample.cpu))
      cores[name] = (total - (previous.cpu[name] ?? 0)) / seconds;
    return { at: sample.at, cores, ...(sample.queued === undefined ? {} : { queued: sample.queued }) };
  });
}
