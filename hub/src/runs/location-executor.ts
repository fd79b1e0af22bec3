import type { RunRow } from './run.repository.js';

/**
 * How a location carries out a pending run (DESIGN.md "Locations"): `worker` executes it in the consuming
 * process; `job` starts a Kubernetes Job whose `meerkat runner --run <id>` executes it. Either way the run
 * goes pending -> running -> completed/failed exactly once, and a second delivery of the same run does nothing.
 */
export interface LocationExecutor {
  execute(run: RunRow, signal: AbortSignal): Promise<void>;
}
