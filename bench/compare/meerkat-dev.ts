// `meerkat dev`: one process with its embedded PGlite database and in-process queue, and the key it creates and
// prints. Its database is one process's files, so the run rows are read once it has stopped, and only after a
// clean exit: the embedded database is closed by the shutdown, and one cut short may lack the last writes.
import { PGlite } from '@electric-sql/pglite';
import { startMeerkatDev as startDevProcess } from '../../test/harness/processes.js';
import { modeEnvironment, type RunningSystem, type Workload } from './bench-system.js';
import { killOnExit, stopChild, within } from './bounded.js';
import { describeChild } from './diagnosis.js';
import { createMonitors, monitorIds, readWindowRuns } from './meerkat-monitors.js';
import { runFigures, schedulesOf } from './window-figures.js';

const START_MS = 120_000;
/** Ready (its key printed) within this, or killed: at a load average of 15 on 2 cores it took more than 60 s. */
const READY_MS = 110_000;
/** Its own bound on stopping; it is killed only 5 s after it. */
const SHUTDOWN_GRACE_SECONDS = 10;
const STOP_MS = (SHUTDOWN_GRACE_SECONDS + 5) * 1000;

export async function startMeerkatDev(workload: Workload): Promise<RunningSystem> {
  // Bounded by the harness (READY_MS to its key), which kills the process when it is not ready.
  const dev = await within(
    'starting meerkat dev',
    START_MS,
    startDevProcess(
      {
        SHUTDOWN_GRACE_SECONDS: String(SHUTDOWN_GRACE_SECONDS),
        // The benchmark creates thousands of monitors with one key.
        API_RATE_LIMIT_PER_SECOND: '0',
        ...modeEnvironment(workload),
      },
      READY_MS,
    ),
  );
  const { child } = dev.process;
  killOnExit(child);
  const stopProcess = () => stopChild(child, 'SIGTERM', STOP_MS);
  const stop = async () => {
    await stopProcess();
    // The harness's stop() removes the data folder; its process is stopped by then, so it does not wait.
    await within('removing the meerkat dev data folder', STOP_MS, dev.stop());
  };
  try {
    const pgdata = /\(embedded PGlite at (.+)\)$/m.exec(dev.process.output())?.[1];
    if (pgdata === undefined || dev.key === '')
      throw new Error(`meerkat dev printed no key or database:\n${dev.process.output()}`);
    const ids = monitorIds(workload.monitors);
    await createMonitors({ apiUrl: dev.api, key: dev.key, ids, ...workload });
    const schedules = schedulesOf(dev.organization, ids, workload.everySeconds * 1000);
    return {
      label: '`meerkat dev` (one process, PGlite)',
      components: { dev: [child.pid ?? 0] },
      metricsUrls: { dev: dev.metricsUrl },
      async figures(fromMs, toMs) {
        const ended = await stopProcess();
        if (ended !== 'exit 0')
          throw new Error(`meerkat dev did not stop cleanly (${ended}), so its database may miss runs`);
        const db = new PGlite(pgdata);
        try {
          const runs = await readWindowRuns(db, fromMs, toMs);
          const figures = runFigures({ schedules, runs, fromMs, toMs });
          return {
            ...figures,
            note: `run rows of the window's slots; lateness is started_at minus the slot`,
          };
        } finally {
          await db.close();
        }
      },
      diagnose: () => [describeChild('dev', child, dev.process.output())],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
