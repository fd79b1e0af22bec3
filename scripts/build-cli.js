// The checkout's compiled CLI (docs/adr/0029-compiled-cli-in-a-checkout.md): transpiles hub/src and operator/src
// file by file (no type check: `npm run typecheck` does that) into dist/, as `npm run build` lays it out, caches the
// top-level `--help` text, and writes dist/.cli-build-stamp last. bin/meerkat.js runs dist/ only while no source is
// newer than that stamp. npm ci runs it (the `prepare` script); it does nothing where there is nothing to build
// (the image's `npm ci` runs before the sources are copied, and without typescript for production dependencies).
// Usage: npm run build:cli
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const sourceDirs = ['hub/src', 'operator/src'].map((dir) => join(root, dir));
const distDir = join(root, 'dist');
const stampPath = join(distDir, '.cli-build-stamp');

function loadTypeScript() {
  try {
    return createRequire(import.meta.url)('typescript');
  } catch {
    return undefined;
  }
}

function* typeScriptFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* typeScriptFiles(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** Written aside and renamed, so a CLI started meanwhile never imports half a file. */
function writeAtomically(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.${process.pid}.partial`, text);
  renameSync(`${path}.${process.pid}.partial`, path);
}

function build(ts) {
  const started = Date.now();
  let count = 0;
  for (const dir of sourceDirs) {
    for (const file of typeScriptFiles(dir)) {
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
        fileName: file,
        // tsconfig.json's settings for emitting; the package is ESM, so ES module output.
        compilerOptions: {
          target: ts.ScriptTarget.ES2023,
          module: ts.ModuleKind.ES2022,
          verbatimModuleSyntax: true,
          esModuleInterop: true,
        },
      });
      writeAtomically(join(distDir, relative(root, file)).replace(/\.ts$/, '.js'), outputText);
      count += 1;
    }
  }
  const help = execFileSync(process.execPath, [join(distDir, 'hub/src/cli/main.js'), '--help'], {
    encoding: 'utf8',
  });
  writeAtomically(join(distDir, 'cli-help.txt'), help);
  writeAtomically(stampPath, `${new Date().toISOString()}\n`);
  console.log(`build:cli: ${count} files into dist/ in ${Date.now() - started} ms`);
}

const ts = loadTypeScript();
if (ts && sourceDirs.every((dir) => existsSync(dir))) build(ts);
