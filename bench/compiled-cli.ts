// `npm run build:cli` for a benchmark: bin/meerkat.js runs dist/ only while no source is newer than its build, so a
// benchmark of the compiled build (as the image runs it) builds it first.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../scripts/build-cli.js', import.meta.url));

export function buildCompiledCli(say: (line: string) => void): void {
  const built = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 300_000 });
  if (built.status !== 0)
    throw new Error(`npm run build:cli failed: ${built.stderr || built.error?.message}`);
  say('built the compiled CLI (npm run build:cli): every meerkat process runs dist/');
}
