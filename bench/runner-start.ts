// How fast a runner Job's container gets going: the time from spawning `meerkat runner --run <id>` to its first
// request reaching the hub, over several starts (`npx tsx bench/runner-start.ts`). The "hub" here only records
// the moment and answers 404, which ends the runner.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/meerkat.js', import.meta.url));
let firstRequestAt = 0;
const server = createServer((_req, res) => {
  firstRequestAt ||= performance.now();
  res
    .writeHead(404, { 'content-type': 'application/json' })
    .end('{"error":"run not found","code":"not_found"}');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const samples: number[] = [];
for (let i = 0; i < 7; i += 1) {
  firstRequestAt = 0;
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'runner', '--run', 'run_bench'], {
    env: {
      PATH: process.env.PATH,
      MEERKAT_URL: url,
      MEERKAT_API_KEY: 'mk_bench',
      MEERKAT_ORGANIZATION_ID: 'bench',
      LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
  await new Promise((resolve) => child.once('exit', resolve));
  if (firstRequestAt > 0) samples.push(firstRequestAt - started);
}
server.close();
samples.sort((a, b) => a - b);
const at = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]?.toFixed(0);
process.stdout.write(
  `process start -> first request to the hub over ${samples.length} starts: min ${at(0)} ms, median ${at(0.5)} ms, max ${at(1)} ms\n`,
);
