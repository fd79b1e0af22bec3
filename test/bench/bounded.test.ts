import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { endOf, stopChild, within } from '../../bench/compare/bounded.js';

const never = new Promise<never>(() => {});

describe('a bounded step', () => {
  it('answers what the work answers', async () => {
    await expect(within('reading the counter', 1_000, Promise.resolve(7))).resolves.toBe(7);
  });

  it('fails naming the step when the work never ends', async () => {
    await expect(within('reading the counter', 10, never)).rejects.toThrow(
      'reading the counter did not finish within 0.01 s',
    );
  });

  it("fails with the work's own error when that comes first", async () => {
    await expect(within('reading', 1_000, Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  });
});

describe('stopping a child', () => {
  async function startChild(code: string) {
    const child = spawn(process.execPath, [
      '-e',
      `${code}; console.log("ready"); setInterval(() => {}, 1000)`,
    ]);
    await once(child.stdout, 'data');
    return child;
  }

  it('ends one that exits on the signal', async () => {
    const child = await startChild('');
    await expect(stopChild(child, 'SIGTERM', 10_000)).resolves.toBe('SIGTERM');
  });

  it('kills one that ignores the signal once its grace is over', async () => {
    const child = await startChild('process.on("SIGTERM", () => {})');
    await expect(stopChild(child, 'SIGTERM', 200)).resolves.toBe(
      'SIGKILL after 0.2 s without exiting on SIGTERM',
    );
    expect(endOf(child)).toBe('SIGKILL');
  });

  it('answers at once for one that a signal has killed already', async () => {
    const child = await startChild('');
    child.kill('SIGKILL');
    await once(child, 'exit');
    await expect(stopChild(child, 'SIGTERM', 60_000)).resolves.toBe('SIGKILL');
  });
});
