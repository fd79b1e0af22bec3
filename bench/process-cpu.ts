// CPU seconds of a process and its live children, read from /proc (Linux). Exited children count through
// their parent's cutime/cstime once reaped, which PostgreSQL's postmaster does.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

function readStat(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[1] is ppid; utime, stime, cutime, cstime are fields 11..14 after the command name.
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
    return { ppid: Number(fields[1]), ticks };
  } catch {
    return undefined;
  }
}

export function processTreeCpuSeconds(rootPid: number): number {
  let ticks = readStat(rootPid)?.ticks ?? 0;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === rootPid) continue;
    const stat = readStat(pid);
    if (stat?.ppid === rootPid) ticks += stat.ticks;
  }
  return ticks / TICKS_PER_SECOND;
}
