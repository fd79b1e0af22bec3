// The HTTP target every system of the comparison checks (bench/target.ts), in a process of its own so its CPU
// counts for no system, with its request counter: the checks that actually reached it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { endOf, killOnExit, stopChild, within } from './bounded.js';

const START_MS = 30_000;
const COUNTER_MS = 5_000;

export interface BenchTarget {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Requests answered so far (`GET /requests`, itself not counted). */
  requests(): Promise<number>;
  stop(): Promise<string>;
}

export async function startBenchTarget(): Promise<BenchTarget> {
  const script = fileURLToPath(new URL('../target.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  killOnExit(child);
  const stop = () => stopChild(child, 'SIGTERM', 10_000);
  try {
    const port = await within(
      'the bench target printing its port',
      START_MS,
      new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
        child.once('exit', () => reject(new Error(`the bench target ended (${endOf(child)})`)));
      }),
    );
    const url = `http://127.0.0.1:${port}`;
    return {
      url,
      async requests() {
        const answer = await fetch(`${url}/requests`, { signal: AbortSignal.timeout(COUNTER_MS) });
        const count = Number(await answer.text());
        if (!answer.ok || !Number.isInteger(count))
          throw new Error(`GET ${url}/requests answered ${answer.status}`);
        return count;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
