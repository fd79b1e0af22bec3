// What prom-client's default metrics cost a process that does nothing else (`npx tsx bench/idle-metrics.ts
// --seconds 20`): three child processes side by side for the same time, one without the default metrics, one
// with them as prom-client sets them (the event loop sampled every 10 ms) and one sampling every 100 ms, as
// hub/src/system/metrics-registry.ts does. Each prints its own CPU (user + system) per second of wall time.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '20' } } });
const seconds = Number(values.seconds);

const CHILD = `
import { collectDefaultMetrics, Registry } from 'prom-client';
const precision = Number(process.argv[1]);
if (precision > 0) collectDefaultMetrics({ register: new Registry(), eventLoopMonitoringPrecision: precision });
setInterval(() => {}, 1000);
const start = process.cpuUsage();
setTimeout(() => {
  const used = process.cpuUsage(start);
  process.stdout.write(String((used.user + used.system) / 1000 / ${seconds}));
  process.exit(0);
}, ${seconds * 1000});
`;

function idleCpu(precisionMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, String(precisionMs)], {
      cwd: new URL('..', import.meta.url),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(Number(out)) : reject(new Error(`child exited ${code}`)),
    );
  });
}

const cases = [
  { label: 'no default metrics', precisionMs: 0 },
  { label: 'default metrics, event loop sampled every 10 ms (prom-client default)', precisionMs: 10 },
  { label: 'default metrics, event loop sampled every 100 ms (Meerkat)', precisionMs: 100 },
];
const figures = await Promise.all(cases.map((c) => idleCpu(c.precisionMs)));
process.stdout.write(`idle CPU over ${seconds} s, side by side:\n`);
cases.forEach((c, i) => process.stdout.write(`  ${(figures[i] ?? 0).toFixed(2)} ms CPU per s  ${c.label}\n`));
