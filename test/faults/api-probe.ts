// The API side of the randomized fault tests' checker: the API called every 2 s through the run, each answer's
// status kept, so the test can want data or 503 within the bound and nothing else.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultDeployment } from './fault-deployment.js';

export interface ApiAnswerSeen {
  at: number;
  status: number | string;
}

/**
 * Calls `GET /monitor/` of the process named `name` every 2 s, bounded by 10 s: each answer's status, or
 * `no answer` when the call failed while that process ran. Nothing is asked while it is down.
 */
export function probeApi(deployment: FaultDeployment, name = 'hub') {
  const answers: ApiAnswerSeen[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const at = Date.now();
      const hub = deployment.processes.find((p) => p.name === name);
      const hubRuns = hub !== undefined && hub.process.child.exitCode === null && !hub.process.child.killed;
      if (hubRuns)
        await deployment.api('GET', '/monitor/', undefined, 10_000).then(
          (answer) => answers.push({ at, status: answer.status }),
          (error: unknown) => answers.push({ at, status: `no answer: ${String(error)}` }),
        );
      await sleep(2_000);
    }
  })();
  return {
    answers,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** Answers with neither data nor 503: no answer at all, or another 5xx. */
export const apiFailures = (answers: readonly ApiAnswerSeen[]) =>
  answers.filter((a) => typeof a.status !== 'number' || (a.status >= 500 && a.status !== 503));
