// One scheduler at a time (docs/adr/0069-scheduler-lease.md): a process schedules only while it holds a session
// advisory lock of PostgreSQL on a connection of its own. The others stand by and try again; the server frees the
// lock when the holder's session ends (the process died, the backend was terminated, the connection dropped).
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';

/** The lock's two keys: "mkat" and the scheduler's number among Meerkat's advisory locks. */
const LOCK_CLASS = 0x6d6b6174;
const LOCK_ID = 1;

export interface LeaseTimings {
  /** How often a stand-by tries to take the lock. */
  retryMs: number;
  /** How often the holder asks the server whether it still holds it. */
  heartbeatMs: number;
  /** How long the server may take to answer that before the holder takes the lease for lost. */
  heartbeatTimeoutMs: number;
  /**
   * How long a process waits between taking the lock and scheduling: longer than a former holder takes to see its
   * loss (a heartbeat and its timeout), so the two never schedule together even when the server freed the lock
   * before the former holder read its connection's end.
   */
  takeoverGraceMs: number;
}

const DEFAULT_LEASE_TIMINGS: LeaseTimings = {
  retryMs: 2_000,
  heartbeatMs: 1_000,
  heartbeatTimeoutMs: 1_000,
  takeoverGraceMs: 2_500,
};

/**
 * What the lease's connection asks of the server: to probe a silent peer after 5 s idle, every 2 s, 3 times. A
 * holder cut off without a word (a partition) stops within a heartbeat and its timeout (2 s); the server frees its
 * lock only once these probes fail (about 11 s), so a stand-by cannot take it sooner.
 */
const SESSION_SETTINGS =
  'set tcp_keepalives_idle = 5; set tcp_keepalives_interval = 2; set tcp_keepalives_count = 3';

/** What the holder runs while it holds the lease: started when taken, closed when lost. */
export interface LeaderWork {
  close(): Promise<void>;
}

export interface SchedulerLease {
  /** Whether this process holds the lease and schedules now. */
  isLeader: () => boolean;
  /**
   * Whether the lease still holds, asked of the server: a pass that writes calls it first, and does nothing when it
   * answers false (the lease is then lost, and the work is being closed).
   */
  stillLeader: () => Promise<boolean>;
  /** Stops the work, frees the lock, and stops trying. */
  close(): Promise<void>;
}

/** Waits `ms`, or less when `signal` aborts: either way it resolves, and the caller looks at the signal. */
const sleep = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);

/**
 * Takes the scheduler's lease when it can and runs `start` while it holds it: `start` once the lock is taken and
 * the grace has passed, the work's close the moment the lease is lost (the connection ended or failed, a heartbeat
 * went unanswered or found the lock gone), then stands by again. Resolves at once; `onChange` hears each change.
 */
export function holdSchedulerLease(options: {
  databaseUrl: string;
  log: Logger;
  start: (lease: SchedulerLease) => Promise<LeaderWork>;
  timings?: Partial<LeaseTimings>;
  registry?: Registry | undefined;
}): SchedulerLease {
  const timings = { ...DEFAULT_LEASE_TIMINGS, ...options.timings };
  const { log } = options;
  const stopping = new AbortController();
  const gauge =
    options.registry === undefined
      ? undefined
      : new Gauge({
          name: 'meerkat_scheduler_leader',
          help: 'Whether this process holds the scheduler lease and schedules (1) or stands by (0).',
          registers: [options.registry],
        });
  gauge?.set(0);
  let leader = false;
  /** The connection holding the lock, while it does; `lose` ends the holding at once. */
  let held: { client: pg.Client; lost: AbortController } | undefined;

  const lose = (reason: string) => {
    if (held === undefined || held.lost.signal.aborted) return;
    // Synchronously: a pass that asks stillLeader from now on gets false, before anything else runs.
    const wasLeader = leader;
    leader = false;
    gauge?.set(0);
    held.lost.abort();
    if (wasLeader) log.warn({ reason }, 'scheduler lease lost: this process stops scheduling');
  };

  const lockHeld = async (client: pg.Client): Promise<boolean> => {
    const { rows } = await client.query<{ held: boolean }>(
      `select exists (select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
         and classid = $1 and objid = $2 and objsubid = 2 and granted) as held`,
      [LOCK_CLASS, LOCK_ID],
    );
    return rows[0]?.held === true;
  };

  const lease: SchedulerLease = {
    isLeader: () => leader,
    async stillLeader() {
      const current = held;
      if (!leader || current === undefined) return false;
      try {
        if (await lockHeld(current.client)) return leader;
        lose('the lock is no longer held');
      } catch (error) {
        lose(`the lease's connection failed: ${String(error)}`);
      }
      return false;
    },
    async close() {
      stopping.abort();
      lose('closing');
      await running;
    },
  };

  /** Holds the lock on `client` until it is lost or the process stops; runs the work meanwhile. */
  async function hold(client: pg.Client): Promise<void> {
    const lost = new AbortController();
    held = { client, lost };
    const heartbeat = setInterval(() => void lease.stillLeader(), timings.heartbeatMs);
    // The heartbeat asks only while leading: during the grace, the connection's end is what tells.
    const either = AbortSignal.any([lost.signal, stopping.signal]);
    await sleep(timings.takeoverGraceMs, either);
    let work: LeaderWork | undefined;
    if (!either.aborted) {
      leader = true;
      gauge?.set(1);
      log.info('scheduler lease taken: this process schedules');
      try {
        work = await options.start(lease);
      } catch (error) {
        log.error({ err: error }, 'the scheduler failed to start; the lease is given up');
        lose('start failed');
      }
      if (!either.aborted) await new Promise((resolve) => either.addEventListener('abort', resolve));
    }
    clearInterval(heartbeat);
    lose('closing');
    await work?.close();
    held = undefined;
  }

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: options.databaseUrl,
      query_timeout: timings.heartbeatTimeoutMs,
      connectionTimeoutMillis: timings.retryMs,
      keepAlive: true,
      application_name: 'meerkat-scheduler-lease',
    });
    client.on('error', (error) => lose(`the lease's connection failed: ${error.message}`));
    client.on('end', () => lose("the lease's connection ended"));
    await client.connect();
    await client.query(SESSION_SETTINGS);
    return client;
  }

  async function loop(): Promise<void> {
    let standingBy = false;
    while (!stopping.signal.aborted) {
      let client: pg.Client | undefined;
      try {
        client = await connect();
        for (;;) {
          const { rows } = await client.query<{ taken: boolean }>(
            'select pg_try_advisory_lock($1, $2) as taken',
            [LOCK_CLASS, LOCK_ID],
          );
          if (rows[0]?.taken === true) break;
          if (!standingBy) log.info('another process holds the scheduler lease: standing by');
          standingBy = true;
          await sleep(timings.retryMs, stopping.signal);
          if (stopping.signal.aborted) return;
        }
        standingBy = false;
        await hold(client);
        // Lost: the others get their turn at the lock before this process tries again.
        await sleep(timings.retryMs, stopping.signal);
      } catch (error) {
        log.warn({ reason: String(error) }, 'the scheduler lease could not be tried; trying again');
        await sleep(timings.retryMs, stopping.signal);
      } finally {
        // Ending the session frees the lock on the server.
        await client?.end().catch(() => undefined);
      }
    }
  }
  const running = loop();
  return lease;
}
