// Memory and state of a system's processes, read from /proc (Linux); their CPU comes from bench/process-cpu.ts.
// As there, a root process counts with its direct children (a PostgreSQL postmaster and its backends); no other
// process of the compared systems forks.
import { readFileSync } from 'node:fs';
import { processTreeCpuSeconds } from '../process-cpu.js';

export interface Memory {
  rssBytes: number;
  /** Proportional set size: shared pages split between the processes sharing them, so sums do not overcount. */
  pssBytes: number;
}

/** Rss and Pss of a /proc/<pid>/smaps_rollup text, in bytes; undefined unless it holds both. */
export function parseSmapsRollup(text: string): Memory | undefined {
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
    return match === null ? undefined : Number(match[1]) * 1024;
  };
  const [rssBytes, pssBytes] = [kib('Rss'), kib('Pss')];
  return rssBytes === undefined || pssBytes === undefined ? undefined : { rssBytes, pssBytes };
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The process has ended.
    return undefined;
  }
}

/** The roots that still run and their direct children (children of the main thread, which is what forks). */
export function treePids(roots: readonly number[]): number[] {
  return roots.flatMap((root) => {
    const children = readProc(`/proc/${root}/task/${root}/children`);
    if (children === undefined) return [];
    return [root, ...children.split(' ').filter(Boolean).map(Number)];
  });
}

/** Memory of the roots and their children now; processes that end while being read count for nothing. */
export function treeMemory(roots: readonly number[]): Memory {
  const total = { rssBytes: 0, pssBytes: 0 };
  for (const pid of treePids(roots)) {
    const memory = parseSmapsRollup(readProc(`/proc/${pid}/smaps_rollup`) ?? '');
    total.rssBytes += memory?.rssBytes ?? 0;
    total.pssBytes += memory?.pssBytes ?? 0;
  }
  return total;
}

export function treeCpuSeconds(roots: readonly number[]): number {
  return roots.reduce((sum, root) => sum + processTreeCpuSeconds(root), 0);
}

/** The state letter of /proc/<pid>/stat (R, S, D, Z, ...), or undefined when the process is gone. */
function stateOf(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

export function isAlive(pid: number): boolean {
  const state = stateOf(pid);
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** `pid 123 S (sleeping)`, or `pid 123 gone`: for the diagnosis of a step that failed. */
export function processState(pid: number): string {
  const state = stateOf(pid);
  const names: Record<string, string> = {
    R: 'running',
    S: 'sleeping',
    D: 'in I/O',
    Z: 'zombie',
    T: 'stopped',
  };
  return state === undefined ? `pid ${pid} gone` : `pid ${pid} ${state} (${names[state] ?? '?'})`;
}
