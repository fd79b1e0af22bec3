import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/processes.js';
import {
  hasStackTrace,
  runMeerkatWithin,
  startFaultDeployment,
  startWatched,
  type FaultDeployment,
  type WatchedProcess,
} from './fault-deployment.js';

/** A log line about the database that is not the "listening" line (which names the database too). */
const waitingLine = /^(?!.*hub API listening).*(database|postgres).*$/im;
/** Loading the program takes a while on a loaded machine before it first tries the database. */
const START_BOUND_MS = 90_000;

describe('meerkat hub starting while PostgreSQL is down', () => {
  let deployment: FaultDeployment;
  let hub: WatchedProcess | undefined;
  beforeAll(async () => {
    // Migrated, then stopped: only the hubs this test starts ever talk to it.
    deployment = await startFaultDeployment([]);
    await deployment.bed.postgres.stop();
  }, 120_000);
  afterAll(async () => {
    hub?.child.kill('SIGKILL');
    await deployment?.close();
  }, 60_000);

  const ports = async () => ({ PORT: String(await freePort()), METRICS_PORT: String(await freePort()) });

  it('waits with a clear log line, no stack trace, and serves once PostgreSQL is up', async () => {
    const hubPorts = await ports();
    hub = startWatched(['hub'], { ...deployment.env, ...hubPorts });
    // While PostgreSQL is down the hub must say so, and neither exit nor serve.
    await hub.waitFor(waitingLine, START_BOUND_MS);
    const whileDown = hub.output();
    await deployment.bed.postgres.start();
    await hub.waitFor(/hub API listening/, START_BOUND_MS);
    const waitingLines = whileDown.split('\n').filter((line) => waitingLine.test(line));
    console.log(
      `[faults] hub start-up without PostgreSQL: ${waitingLines.length} line(s) while waiting, e.g. ${waitingLines[0]}`,
    );

    expect(whileDown).not.toMatch(/hub API listening/);
    expect(hasStackTrace(whileDown), whileDown).toBe(false);
    expect(hub.child.exitCode, 'the hub after PostgreSQL came up').toBeNull();
    const ready = await fetch(`http://127.0.0.1:${hubPorts.PORT}/readyz`);
    expect(ready.status).toBe(200);
  }, 240_000);

  it('with STARTUP_WAIT_SECONDS=3 and PostgreSQL never coming, exits non-zero with one line on stderr', async () => {
    await deployment.bed.postgres.stop();
    const finished = await runMeerkatWithin(
      ['hub'],
      { ...deployment.env, STARTUP_WAIT_SECONDS: '3', ...(await ports()) },
      START_BOUND_MS,
    );
    const stderrLines = finished.stderr
      .trim()
      .split('\n')
      .filter((line) => line !== '');
    console.log(
      `[faults] hub start-up, PostgreSQL never up: exit ${finished.code}, stderr: ${finished.stderr.trim()}`,
    );

    expect(finished.timedOut, 'still running long after its 3 s of waiting').toBe(false);
    expect(finished.code).not.toBe(0);
    expect(finished.code).not.toBeNull();
    expect(stderrLines).toHaveLength(1);
    expect(stderrLines[0]).toMatch(/database|postgres/i);
    expect(hasStackTrace(finished.stderr + finished.stdout)).toBe(false);
  }, 120_000);
});
