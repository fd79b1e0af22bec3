// The scheduler lease against real PostgreSQL (docs/adr/0069-scheduler-lease.md): schedulers that tick numbered
// slots into a ledger while they hold it, and a test that kills them or terminates their lease's backend.
// MEERKAT_LEASE_SEED replays the randomized sequence a run printed.
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdSchedulerLease, type SchedulerLease } from '../../hub/src/scheduling/scheduler-lease.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { eventually } from '../harness/eventually.js';
import { seededRandom } from '../harness/seeded-random.js';

// Short enough for a test, long enough for a machine at a load of 20: the connection's timeout is retryMs and a
// heartbeat's is heartbeatTimeoutMs; the grace stays above a heartbeat and its timeout, as the lease requires.
const TIMINGS = { retryMs: 250, heartbeatMs: 200, heartbeatTimeoutMs: 2_000, takeoverGraceMs: 3_000 };
const TICK_MS = 20;

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 8 });
  await pool.query(
    'create table slot_ticks (seq bigserial primary key, slot int not null, scheduler text not null)',
  );
});

afterAll(async () => {
  await pool.end();
  await database.drop();
});

/** The slot clock the schedulers tick up to: the test moves it on. */
const clock = { slot: 0 };

/**
 * How many times any scheduler has taken the lease and started ticking since the last reset. A reign in the ledger
 * begins only at a start, so more reigns than starts means two schedulers ticked at once; a leader that stepped down
 * on a slow heartbeat and took the lease again is two starts, and two reigns, and correct.
 */
const starts = { count: 0 };

interface Scheduler {
  name: string;
  lease: SchedulerLease;
  /** Ends it as a killed process ends: no pass runs from now on, and its session goes with it. */
  kill(): Promise<void>;
}

/**
 * A scheduler: while it holds the lease, every TICK_MS it reads the last slot ticked from the ledger and ticks each
 * one after it up to the clock, one row a slot. Without the lease's exclusion two of them would tick a slot twice.
 */
function startScheduler(name: string): Scheduler {
  let dead = false;
  const lease = holdSchedulerLease({
    databaseUrl: database.url,
    log: pino({ level: 'silent' }),
    timings: TIMINGS,
    start: (held) => {
      starts.count += 1;
      let stopped = false;
      let pass = Promise.resolve();
      const timer = setInterval(() => {
        pass = pass.then(async () => {
          if (stopped || dead || !(await held.stillLeader())) return;
          const { rows } = await pool.query<{ last: number | null }>(
            'select max(slot) as last from slot_ticks',
          );
          const target = clock.slot;
          for (let slot = (rows[0]?.last ?? 0) + 1; slot <= target; slot += 1) {
            if (dead) return;
            await pool.query('insert into slot_ticks (slot, scheduler) values ($1, $2)', [slot, name]);
          }
        });
      }, TICK_MS);
      return Promise.resolve({
        async close() {
          stopped = true;
          clearInterval(timer);
          await pass;
        },
      });
    },
  });
  return {
    name,
    lease,
    async kill() {
      dead = true;
      await terminateLease();
      await lease.close();
    },
  };
}

/** Terminates the backend holding the lease's lock, as an administrator or a failover would. */
async function terminateLease(): Promise<number> {
  const { rows } = await pool.query<{ terminated: number }>(
    `select count(pg_terminate_backend(pid))::int as terminated from pg_locks
      where locktype = 'advisory' and classid = $1 and objid = 1 and objsubid = 2 and granted`,
    [0x6d6b6174],
  );
  return rows[0]?.terminated ?? 0;
}

const leaders = (schedulers: readonly Scheduler[]) => schedulers.filter((s) => s.lease.isLeader());

/** Moves the clock on by `slots` and waits until they are all ticked. */
async function advance(slots: number): Promise<void> {
  clock.slot += slots;
  await eventually(`slot ${clock.slot} ticked`, async () => {
    const { rows } = await pool.query<{ last: number | null }>('select max(slot) as last from slot_ticks');
    return rows[0]?.last === clock.slot;
  });
}

/** Every slot up to the clock ticked exactly once; and the schedulers that ticked them, in ledger order. */
async function ledger(): Promise<{ reigns: string[] }> {
  const { rows: counts } = await pool.query<{ slot: number; ticks: number }>(
    'select slot, count(*)::int as ticks from slot_ticks group by slot order by slot',
  );
  expect(counts.filter((row) => row.ticks !== 1)).toEqual([]);
  expect(counts.map((row) => row.slot)).toEqual(Array.from({ length: clock.slot }, (_, i) => i + 1));
  const { rows } = await pool.query<{ scheduler: string }>('select scheduler from slot_ticks order by seq');
  const reigns: string[] = [];
  for (const { scheduler } of rows) if (reigns.at(-1) !== scheduler) reigns.push(scheduler);
  return { reigns };
}

async function reset(): Promise<void> {
  await pool.query('truncate slot_ticks');
  clock.slot = 0;
  starts.count = 0;
}

describe('the scheduler lease', () => {
  it('lets one of two schedulers tick; the other takes over when it is killed, losing and doubling no slot', async () => {
    await reset();
    const a = startScheduler('a');
    const b = startScheduler('b');
    try {
      await eventually('a leader', () => Promise.resolve(leaders([a, b]).length === 1));
      await advance(20);
      expect(leaders([a, b]).length).toBeLessThanOrEqual(1);
      await eventually('a leader', () => Promise.resolve(leaders([a, b]).length === 1));
      const [first] = leaders([a, b]);
      if (first === undefined) throw new Error('no leader');
      const other = first === a ? b : a;
      expect((await ledger()).reigns.at(-1)).toBe(first.name);

      const startsBefore = starts.count;
      await first.kill();
      // Slots come due while nobody leads: the one taking over ticks them.
      clock.slot += 10;
      await eventually('the stand-by leads', () => Promise.resolve(other.lease.isLeader()));
      await advance(10);
      const { reigns } = await ledger();
      expect(reigns.at(-1)).toBe(other.name);
      expect(reigns.length).toBeLessThanOrEqual(starts.count);
      expect(starts.count).toBeGreaterThan(startsBefore);
    } finally {
      await Promise.all([a.lease.close(), b.lease.close()]);
    }
  }, 60_000);

  it('stops a leader whose backend is terminated before the other starts, and it stands by', async () => {
    await reset();
    const a = startScheduler('a');
    await eventually('a leads', () => Promise.resolve(a.lease.isLeader()));
    const b = startScheduler('b');
    try {
      await advance(10);
      expect(await terminateLease()).toBe(1);
      // a lost its session: it stops at once, before b's grace has passed.
      expect(a.lease.isLeader() && (await a.lease.stillLeader())).toBe(false);
      clock.slot += 5;
      await eventually('someone leads again', () => Promise.resolve(leaders([a, b]).length === 1));
      await advance(10);
      expect(leaders([a, b]).length).toBeLessThanOrEqual(1);
      const { reigns } = await ledger();
      expect(reigns[0]).toBe('a');
      // With two ticking at once, the reigns would interleave: more of them than starts.
      expect(reigns.length).toBeLessThanOrEqual(starts.count);
    } finally {
      await Promise.all([a.lease.close(), b.lease.close()]);
    }
  }, 60_000);

  it('keeps every slot ticked once through a seeded sequence of kills and terminated backends', async () => {
    const seed = Number(process.env.MEERKAT_LEASE_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`scheduler lease: MEERKAT_LEASE_SEED=${seed}`);
    const random = seededRandom(seed);
    await reset();
    let started = 0;
    const alive: Scheduler[] = [];
    const spawn = () => alive.push(startScheduler(`s${(started += 1)}`));
    spawn();
    spawn();
    spawn();
    let takeovers = 0;
    try {
      for (let step = 0; step < 8; step += 1) {
        await eventually('a leader', () => Promise.resolve(leaders(alive).length === 1));
        await advance(1 + Math.floor(random() * 10));
        const event = random() < 0.5 ? 'kill' : 'blink';
        if (event === 'kill') {
          const [leader] = leaders(alive);
          if (leader === undefined) continue;
          alive.splice(alive.indexOf(leader), 1);
          await leader.kill();
          spawn();
        } else {
          expect(await terminateLease()).toBe(1);
        }
        takeovers += 1;
        clock.slot += Math.floor(random() * 5);
      }
      await eventually('a leader', () => Promise.resolve(leaders(alive).length === 1));
      await advance(5);
      const { reigns } = await ledger();
      // Each reign begins at a start: two leaders at once would interleave theirs, more reigns than starts.
      expect(reigns.length).toBeLessThanOrEqual(starts.count);
      expect(starts.count).toBeGreaterThanOrEqual(takeovers);
    } finally {
      await Promise.all(alive.map((scheduler) => scheduler.lease.close()));
    }
    // Eight takeovers of a grace each, on a machine shared with other test files.
  }, 120_000);
});
