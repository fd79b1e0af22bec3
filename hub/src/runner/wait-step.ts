import { setTimeout as sleep } from 'node:timers/promises';
import type { StepResult } from './run-outcome.js';
import { elapsedMs, type StepContext, type WaitNode } from './step-context.js';
import { classifyStepError } from './step-errors.js';

/** A WAIT step: sleeps `duration_ms`, or less when the run ends first (then it fails, saying why). */
export async function executeWait(node: WaitNode, context: StepContext): Promise<StepResult> {
  const started = performance.now();
  const result: StepResult = {
    nodeId: node.id,
    type: 'WAIT',
    status: 'passed',
    startedAt: context.now().toISOString(),
    durationMs: null,
  };
  try {
    await sleep(node.duration_ms, undefined, { signal: context.runSignal });
  } catch (error) {
    const { errorClass, message } = classifyStepError(error, context.runSignal);
    result.status = 'failed';
    result.errorClass = errorClass;
    result.error = message;
  }
  result.durationMs = elapsedMs(started);
  return result;
}
