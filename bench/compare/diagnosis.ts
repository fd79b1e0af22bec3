// What the message of a failed step says about each process of the system: how it is (running, sleeping, in
// I/O, gone, how it ended) and the last lines it logged, request logs left out.
import type { ChildProcess } from 'node:child_process';
import { endOf } from './bounded.js';
import { processState } from './process-tree.js';

const TAIL_LINES = 6;
const LINE_CHARS = 400;

export function describeChild(name: string, child: ChildProcess, log: string): string {
  const tail = log
    .trimEnd()
    .split('\n')
    .filter((line) => line !== '' && !line.includes('"msg":"request completed"'))
    .slice(-TAIL_LINES)
    .map((line) => `\n    ${line.slice(0, LINE_CHARS)}`);
  return `${name}: ${endOf(child)}, ${processState(child.pid ?? 0)}${tail.join('')}`;
}
