// Preloaded with `NODE_OPTIONS=--import=<this file>` (Node refuses `--cpu-prof` in NODE_OPTIONS): the first
// SIGUSR2 starts V8's sampling profiler in this process, the second writes the profile to
// $CPU_PROFILE_DIR/<pid>-<n>.cpuprofile (open it in Chrome's DevTools or read it with bench/profile/top-frames.ts).
// Only for benchmarks: it replaces SIGUSR2's default (ending the process) with this toggle.
import { writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { join } from 'node:path';

const directory = process.env.CPU_PROFILE_DIR || '/tmp';
const session = new inspector.Session();
session.connect();
let profiling = false;
let written = 0;

process.on('SIGUSR2', () => {
  if (!profiling) {
    profiling = true;
    session.post('Profiler.enable', () => session.post('Profiler.start'));
    return;
  }
  profiling = false;
  session.post('Profiler.stop', (error, result) => {
    if (error) return process.stderr.write(`cpu profile: ${error.message}\n`);
    written += 1;
    writeFileSync(join(directory, `${process.pid}-${written}.cpuprofile`), JSON.stringify(result.profile));
  });
});
