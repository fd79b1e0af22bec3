// The entry point of an assertion pool thread (assertion-pool.ts): answers one task at a time, for as long as the
// pool keeps it. The caches of the evaluator (parsed paths, compiled patterns) live as long as the thread.
import { parentPort } from 'node:worker_threads';
import { createBodyCheckEvaluator, type BodyCheck } from './body-check-evaluation.js';

export interface AssertionTask {
  id: number;
  text: string;
  checks: BodyCheck[];
}

const evaluate = createBodyCheckEvaluator();
const port = parentPort;
if (port === null) throw new Error('assertion-thread.ts runs as a worker thread of the assertion pool');
port.on('message', (task: AssertionTask) => {
  port.postMessage({ id: task.id, verdicts: evaluate(task.text, task.checks) });
});
port.postMessage({ ready: true });
