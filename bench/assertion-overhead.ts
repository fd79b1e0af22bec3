// What evaluating a JSONPath body assertion on the assertion pool costs next to evaluating it on the event loop
// (`npx tsx bench/assertion-overhead.ts --checks 20000 --concurrency 1`): CPU of the whole process (every thread)
// per check, for the body and assertion of bench/runs.ts. The difference is the pool's per-check cost: a message
// each way, the body parsed again in the thread, the thread waking up. A worker at full load finishes a run every
// few milliseconds, so its checks rarely overlap: concurrency 1 is its case; a higher one shows a burst.
import { parseArgs } from 'node:util';
import { createAssertionPool } from '../hub/src/runner/assertion-pool.js';
import { createBodyCheckEvaluator, type BodyCheck } from '../hub/src/runner/body-check-evaluation.js';

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '1' },
  },
});
const checks = Number(values.checks);
const concurrency = Number(values.concurrency);
const say = (line: string) => process.stdout.write(`${line}\n`);

const TEXT = JSON.stringify({ status: 'ok', items: [{ id: 1, name: 'anvil' }], count: 42 });
const CHECKS: BodyCheck[] = [
  { path: '$.status', predicate: { type: 'binary', operator: 'EQUAL', expected: 'ok' } },
];

/** CPU microseconds (user + system, all threads) and wall milliseconds per check of `evaluate`. */
async function measure(evaluate: () => Promise<unknown>): Promise<{ cpuUs: number; wallMs: number }> {
  for (let i = 0; i < 1000; i += 1) await evaluate(); // warm-up: threads started, code optimized
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < checks) {
      next += 1;
      await evaluate();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / checks, wallMs: (performance.now() - started) / checks };
}

const inline = createBodyCheckEvaluator();
const onLoop = await measure(() => Promise.resolve(inline(TEXT, CHECKS)));
const pool = createAssertionPool();
// A signal per evaluation, as each run has its own.
const onPool = await measure(() => pool.evaluate(TEXT, CHECKS, 2000, new AbortController().signal));
await pool.close();

say(`${checks} checks, ${concurrency} in flight, body ${TEXT.length} bytes, path ${CHECKS[0]?.path}`);
say(`on the event loop : ${onLoop.cpuUs.toFixed(1)} µs CPU per check`);
say(`on the pool       : ${onPool.cpuUs.toFixed(1)} µs CPU per check (all threads)`);
say(`pool overhead     : ${(onPool.cpuUs - onLoop.cpuUs).toFixed(1)} µs CPU per check`);
