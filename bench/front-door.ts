// The front door's times (issue 34): `meerkat dev` and `npm start` from spawn to /readyz on a first start (a fresh
// data directory) and a restart (the same one), and the CLI from the checkout (--version, --help, `get monitors`
// against an empty hub and against 1,000 monitors, with its count of HTTP requests), beside `node -e 0` as the
// floor. Each is repeated; every line gives median and min–max and the load average before and after, since the
// machine may be shared. Everything runs in temporary directories with their own HOME, on free loopback ports.
// Usage: npm run bench:front-door [-- --runs 5 --monitors 1000 --console-build]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  countingProxy,
  createMonitors,
  devApiKey,
  freePort,
  startDevHub,
  stopDevHub,
  type DevHubPlace,
} from './front-door-hub.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    monitors: { type: 'string', default: '1000' },
    // Also time `npm start` on a checkout whose console was never built (a vite build into a temporary directory).
    'console-build': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const monitorCount = Number(values.monitors);
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/meerkat.js');
const scratch = mkdtempSync(join(tmpdir(), 'meerkat-front-door-'));

const load = () =>
  loadavg()
    .map((figure) => figure.toFixed(1))
    .join(' ');
const seconds = (ms: number) => (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);

function report(label: string, samples: number[], loadBefore: string, extra = ''): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
  const range = `${seconds(sorted[0] ?? Number.NaN)}–${seconds(sorted.at(-1) ?? Number.NaN)}`;
  process.stdout.write(
    `| ${label} | ${sorted.length} | ${seconds(median)} s | ${range} s | ${loadBefore} → ${load()} |${extra || ' |'}\n`,
  );
}

/** Runs `body` `runs` times and reports the milliseconds each returned. */
async function measure(label: string, body: (run: number) => Promise<number>, extra = ''): Promise<void> {
  const before = load();
  const samples: number[] = [];
  for (let run = 0; run < runs; run += 1) samples.push(await body(run));
  report(label, samples, before, extra);
}

/** Milliseconds from the spawn of COMMAND until it exited (0 expected); its output is read and dropped. */
function timeProcess(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.trim()}`)),
    ),
  );
}

/** `GET /monitor/?page=0`, `GET /monitor/?page=1` → `2× GET /monitor/`. */
function requestsByPath(requests: string[]): string {
  const counts = new Map<string, number>();
  for (const request of requests)
    counts.set(request.split('?')[0] ?? request, (counts.get(request.split('?')[0] ?? request) ?? 0) + 1);
  return [...counts].map(([path, count]) => `${count}× ${path}`).join(', ');
}

async function newPlace(name: string): Promise<DevHubPlace> {
  const home = join(scratch, `${name}-home`);
  return { home, dataDir: join(home, '.meerkat'), port: await freePort(), metricsPort: await freePort() };
}

/** Whether bin/meerkat.js will run the compiled CLI (ADR 0029) rather than the sources through tsx. */
function compiledIsCurrent(): boolean {
  let built: number;
  try {
    built = statSync(join(root, 'dist/.cli-build-stamp')).mtimeMs;
  } catch {
    return false;
  }
  return ['hub/src', 'operator/src'].every((dir) =>
    readdirSync(join(root, dir), { withFileTypes: true, recursive: true }).every(
      (entry) => !entry.isFile() || statSync(join(entry.parentPath, entry.name)).mtimeMs <= built,
    ),
  );
}

const revision = await new Promise<string>((resolve) => {
  const git = spawn('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  git.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  git.once('exit', () => resolve(out.trim() || 'unknown'));
});
process.stdout.write(
  `${new Date().toISOString()}, revision ${revision}, ${cpus().length} cores ${cpus()[0]?.model ?? ''}, ` +
    `${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; CLI: ` +
    `${compiledIsCurrent() ? 'compiled dist/ (current)' : 'SOURCES NEWER THAN dist/: tsx (run npm run build:cli)'}\n\n` +
    '| what | runs | median | min–max | load average (1, 5, 15 min) before → after | requests |\n' +
    '| --- | --- | --- | --- | --- | --- |\n',
);

const bare = { PATH: process.env.PATH, HOME: join(scratch, 'cli-home') };
try {
  await measure('`node -e 0` (the floor)', () => timeProcess(process.execPath, ['-e', '0'], bare));
  await measure('`./bin/meerkat.js --version`', () => timeProcess(bin, ['--version'], bare));
  await measure('`./bin/meerkat.js --help`', () => timeProcess(bin, ['--help'], bare));

  const dev = [bin, 'dev'];
  let last: DevHubPlace | undefined;
  await measure('`meerkat dev` first start (fresh data directory) to /readyz', async (run) => {
    last = await newPlace(`first-${run}`);
    const hub = await startDevHub(process.execPath, dev, last, root);
    await stopDevHub(hub.child);
    return hub.readyAfterMs;
  });
  const place = last as DevHubPlace;
  await measure('`meerkat dev` restart (same data directory) to /readyz', async () => {
    const hub = await startDevHub(process.execPath, dev, place, root);
    await stopDevHub(hub.child);
    return hub.readyAfterMs;
  });
  // npm start's prestart builds the console when web/ changed since the last build: once here, not measured.
  await timeProcess(process.execPath, [join(root, 'scripts/build-console.js')], bare);
  await measure('`npm start` restart (console unchanged) to /readyz', async () => {
    const hub = await startDevHub('npm', ['start', '--silent'], place, root);
    await stopDevHub(hub.child);
    return hub.readyAfterMs;
  });
  if (values['console-build'] === true) {
    await measure('`npm start` never-built console, fresh data directory, to /readyz', async (run) => {
      const fresh = await newPlace(`console-${run}`);
      const console = join(scratch, `console-${run}`);
      const hub = await startDevHub(
        'sh',
        ['-c', `CONSOLE_OUT_DIR=${console} exec npm start --silent`],
        fresh,
        root,
        600_000,
      );
      await stopDevHub(hub.child);
      return hub.readyAfterMs;
    });
  }

  const hub = await startDevHub(process.execPath, dev, place, root);
  try {
    const apiKey = devApiKey(place.dataDir);
    const cli = (url: string) => ({ ...bare, MEERKAT_URL: url, MEERKAT_API_KEY: apiKey });
    const getMonitors = async (label: string) => {
      const proxy = await countingProxy(hub.url);
      await timeProcess(bin, ['get', 'monitors'], cli(proxy.url));
      await proxy.close();
      const counted = ` ${proxy.requests.length} HTTP requests (${requestsByPath(proxy.requests)}) |`;
      await measure(label, () => timeProcess(bin, ['get', 'monitors'], cli(hub.url)), counted);
    };
    await getMonitors('`./bin/meerkat.js get monitors`, no monitors');
    const started = performance.now();
    await createMonitors(hub.url, apiKey, monitorCount);
    process.stdout.write(
      `\n(${monitorCount} monitors created in ${seconds(performance.now() - started)} s)\n\n`,
    );
    await getMonitors(`\`./bin/meerkat.js get monitors\`, ${monitorCount} monitors`);
  } finally {
    await stopDevHub(hub.child);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
