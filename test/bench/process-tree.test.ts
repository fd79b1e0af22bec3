import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isAlive,
  parseSmapsRollup,
  processState,
  treeMemory,
  treePids,
} from '../../bench/compare/process-tree.js';

const rollup = `56435f39f000-7ffe7c896000 ---p 00000000 00:00 0                          [rollup]
Rss:                1684 kB
Pss:                 297 kB
Pss_Dirty:           112 kB
Shared_Clean:       1532 kB
`;

describe('reading /proc/<pid>/smaps_rollup', () => {
  it('answers Rss and Pss in bytes, not the fields that merely start alike', () => {
    expect(parseSmapsRollup(rollup)).toEqual({ rssBytes: 1684 * 1024, pssBytes: 297 * 1024 });
  });

  it('answers undefined for text without them', () => {
    expect(parseSmapsRollup('')).toBeUndefined();
    expect(parseSmapsRollup('Rss: 12 kB\n')).toBeUndefined();
  });

  it('reads this process, whose proportional share is at most its resident size', () => {
    const memory = parseSmapsRollup(readFileSync('/proc/self/smaps_rollup', 'utf8'));
    expect(memory?.pssBytes).toBeGreaterThan(0);
    expect(memory?.pssBytes).toBeLessThanOrEqual(memory?.rssBytes ?? 0);
  });
});

describe('a process tree', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
  });

  async function startChild(): Promise<ChildProcess> {
    child = spawn(process.execPath, ['-e', 'console.log("ready"); setInterval(() => {}, 1000)']);
    await once(child.stdout as NodeJS.ReadableStream, 'data');
    return child;
  }

  it("holds a root and its children, and the child's memory counts", async () => {
    const { pid } = await startChild();
    expect(treePids([process.pid])).toEqual(expect.arrayContaining([process.pid, pid]));
    expect(treeMemory([pid as number]).rssBytes).toBeGreaterThan(0);
  });

  it('counts a root that has ended for nothing, and says it is gone', async () => {
    const ended = await startChild();
    const pid = ended.pid as number;
    ended.kill('SIGKILL');
    await once(ended, 'exit');
    expect(isAlive(pid)).toBe(false);
    expect(treePids([pid])).toEqual([]);
    expect(treeMemory([pid])).toEqual({ rssBytes: 0, pssBytes: 0 });
    expect(processState(pid)).toBe(`pid ${pid} gone`);
  });

  it('says a live process runs or sleeps', async () => {
    const { pid } = await startChild();
    expect(isAlive(pid as number)).toBe(true);
    expect(processState(pid as number)).toMatch(/^pid \d+ [RS] \((running|sleeping)\)$/);
  });
});
