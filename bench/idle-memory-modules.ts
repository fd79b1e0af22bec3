// Which packages a Node process loaded, for `bench/idle-memory.ts --modules`: a preload (`--import`) registers a
// loader hook that appends every ES module's URL to `<dir>/<pid>.esm`, and writes require.cache (the CommonJS
// modules) to `<dir>/<pid>.cjs` once `<dir>/<pid>.dump` appears. The files are written into the folder at run
// time, as plain JavaScript: the processes may run the compiled build, without tsx.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HOOKS = (dir: string) => `
import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  appendFileSync(${JSON.stringify(dir)} + '/' + process.pid + '.esm', url + '\\n');
  return nextLoad(url, context);
}
`;

const PRELOAD = (dir: string, hooksUrl: string) => `
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const dir = ${JSON.stringify(dir)};
register(${JSON.stringify(hooksUrl)});
const require = createRequire(import.meta.url);
setInterval(() => {
  if (existsSync(dir + '/' + process.pid + '.dump'))
    writeFileSync(dir + '/' + process.pid + '.cjs', Object.keys(require.cache).join('\\n'));
}, 500).unref();
`;

/** Writes the hooks into `dir` and answers the preload's path, for `--import`. */
export function moduleCensusHooks(dir: string): string {
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(hooks, HOOKS(dir));
  const preload = join(dir, 'preload.mjs');
  writeFileSync(preload, PRELOAD(dir, pathToFileURL(hooks).href));
  return preload;
}

/** `@scope/name` or `name` after the last node_modules/, `meerkat <folder>` for Meerkat's own sources. */
function packageOf(path: string): string {
  const inModules = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inModules?.[1] !== undefined) return inModules[1];
  const own = /\/(hub|operator)\/src\/([^/]+)/.exec(path);
  return own === null ? 'other' : `meerkat ${own[1]}/${own[2]}`;
}

/** The packages the process loaded, largest source first: `name modules/KiB`. */
export function loadedPackages(dir: string, pid: number): string {
  const read = (suffix: string) =>
    existsSync(join(dir, `${pid}.${suffix}`)) ? readFileSync(join(dir, `${pid}.${suffix}`), 'utf8') : '';
  const files = new Set(
    [...read('esm').split('\n'), ...read('cjs').split('\n')]
      .filter((entry) => entry.startsWith('file:') || entry.startsWith('/'))
      .map((entry) => (entry.startsWith('file:') ? fileURLToPath(entry) : entry)),
  );
  const byPackage = new Map<string, { modules: number; bytes: number }>();
  for (const file of files) {
    const name = packageOf(file);
    const entry = byPackage.get(name) ?? { modules: 0, bytes: 0 };
    entry.modules += 1;
    entry.bytes += existsSync(file) ? statSync(file).size : 0;
    byPackage.set(name, entry);
  }
  const total = [...byPackage.values()].reduce((sum, { bytes }) => sum + bytes, 0);
  const list = [...byPackage.entries()]
    .sort(([, a], [, b]) => b.bytes - a.bytes)
    .map(([name, { modules, bytes }]) => `${name} ${modules}/${Math.round(bytes / 1024)}`);
  return `${files.size} files, ${Math.round(total / 1024)} KiB of source: ${list.join(', ')}`;
}
