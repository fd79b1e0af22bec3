#!/usr/bin/env node
// The one entry point of every `meerkat` sub-command (docs/adr/0029-compiled-cli-in-a-checkout.md). It runs the
// compiled dist/ when that is current: always in the container image (no sources there), and in a checkout while no
// source is newer than the build npm ci's `prepare` made (scripts/build-cli.js). Otherwise it runs the TypeScript
// sources through tsx, so an edited checkout never runs yesterday's code.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const at = (path) => fileURLToPath(new URL(path, import.meta.url));
const compiled = at('../dist/hub/src/cli/main.js');
const sourceDirs = [at('../hub/src'), at('../operator/src')];
const args = process.argv.slice(2);

function mtimeOrUndefined(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether some file under DIR changed after LIMIT (milliseconds). A few hundred stats: a few milliseconds. */
function changedSince(dir, limit) {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).some(
    (entry) => entry.isFile() && statSync(`${entry.parentPath}/${entry.name}`).mtimeMs > limit,
  );
}

function compiledIsCurrent() {
  if (mtimeOrUndefined(compiled) === undefined) return false;
  if (sourceDirs.every((dir) => mtimeOrUndefined(dir) === undefined)) return true; // the image: dist/ only
  const built = mtimeOrUndefined(at('../dist/.cli-build-stamp'));
  return built !== undefined && !sourceDirs.some((dir) => changedSince(dir, built));
}

// The two answers that need no module of the CLI at all.
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(at('../package.json'), 'utf8')).version}\n`);
  process.exit(0);
}
const current = compiledIsCurrent();
if (current && args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
  try {
    process.stdout.write(readFileSync(at('../dist/cli-help.txt'), 'utf8'));
    process.exit(0);
  } catch {
    // an image built by `npm run build` has no cached help: the CLI prints it
  }
}

if (current) {
  await import(compiled);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../hub/src/cli/main.ts');
}
