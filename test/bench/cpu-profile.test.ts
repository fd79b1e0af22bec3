import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const preload = join(root, 'bench/profile/cpu-profile-on-signal.js');

// docs/benchmarks.md profiles the worker with `--node-options=--import=$PWD/bench/profile/cpu-profile-on-signal.js`,
// `kill -USR2` at the window's start and end, and `npx tsx bench/profile/top-frames.ts FILE`: the same on a process
// of the test's own.
describe('the CPU profile on signal, and its reader', () => {
  it('writes a profile between two SIGUSR2 and names where its time went', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'cpu-profile-'));
    try {
      const busy =
        'let x = 0; const t = setInterval(() => { for (let i = 0; i < 1e6; i++) x += i; }, 5);' +
        'process.on("SIGTERM", () => { clearInterval(t); });';
      const child = spawn(process.execPath, ['-e', busy], {
        env: { ...process.env, NODE_OPTIONS: `--import=${preload}`, CPU_PROFILE_DIR: directory },
        stdio: 'ignore',
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await sleep(1_000);
      child.kill('SIGUSR2');
      await sleep(1_000);
      child.kill('SIGUSR2');
      await sleep(1_000);
      child.kill('SIGTERM');
      await exited;
      const files = await readdir(directory);
      expect(files).toEqual([`${child.pid}-1.cpuprofile`]);
      const { stdout } = await promisify(execFile)(
        'npx',
        ['tsx', 'bench/profile/top-frames.ts', join(directory, files[0] ?? ''), '5'],
        { cwd: root, timeout: 60_000 },
      );
      expect(stdout).toMatch(/s sampled\n\nself time by function:\n/);
      expect(stdout).toMatch(/self time by package or file:\n\s*[\d.]+%/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
