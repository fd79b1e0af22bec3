// What bench:operator (operator-fleet.ts) and bench:monitor-sync (monitor-sync.ts) share: the Monitor custom
// resource of a fleet, a process's CPU and peak RSS from /proc, and how the bench ends.
import { readFileSync } from 'node:fs';
import { MONITOR_API_VERSION, MONITOR_KIND } from '../hub/src/contract/monitor-resource.js';

/** CPU seconds (user + system) and peak RSS of a process, from /proc. */
export function processUsage(pid: number): { cpuSeconds: number; peakRssMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { cpuSeconds: ticks / 100, peakRssMiB: Number(hwm) / 1024 };
}

/**
 * One Monitor of the fleet: a GET of `/<name>` on the target. Every 5 minutes unless `frequency` says otherwise:
 * the fleet's checks weigh little (N / 300 a second), and every Monitor's first run lands within 5 minutes of its
 * sync, so bench:operator's steady state comes soon. No project: the operator's default policy names it after the
 * namespace.
 */
export function monitorResource(
  name: string,
  targetUrl: string,
  namespace: string,
  frequency: { every: number; unit: 'MINUTE' | 'HOUR' | 'DAY' } = { every: 5, unit: 'MINUTE' },
) {
  return {
    apiVersion: MONITOR_API_VERSION,
    kind: MONITOR_KIND,
    metadata: { name, namespace },
    spec: {
      version: '1.0',
      frequency,
      nodes: [
        {
          id: 'get',
          type: 'HTTP_REQUEST',
          method: 'GET',
          base: targetUrl,
          path: `/${name}`,
          response_format: 'JSON',
        },
      ],
    },
  };
}

/** Runs the bench's `main` and exits: 0 when it finished, 1 after saying why it failed. */
export async function runToExit(main: () => Promise<void>, say: (line: string) => void): Promise<never> {
  let exitCode = 0;
  try {
    await main();
  } catch (error) {
    exitCode = 1;
    say(`failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(exitCode);
}
