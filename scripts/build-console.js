// `npm start`'s console build (the `prestart` script): runs `npm run build:console` only when the console's inputs
// changed since the build in web/dist, which keeps a hash of them in web/dist/.source-hash. A restart with an
// unchanged web/ then costs a few milliseconds of hashing instead of a vite build.
// Usage: node scripts/build-console.js
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const webDir = join(root, 'web');
// As web/vite.config.ts: relative to web/.
const outDir = resolve(webDir, process.env.CONSOLE_OUT_DIR ?? 'dist');
const hashPath = join(outDir, '.source-hash');

/** Everything vite reads for the console: web/ without its output, and the installed dependencies' versions. */
function inputsHash() {
  const hash = createHash('sha256');
  const files = readdirSync(webDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.startsWith(`${outDir}/`) && !path.startsWith(join(webDir, 'dist/')))
    .sort();
  for (const path of [...files, join(root, 'package-lock.json')]) {
    hash.update(`${relative(root, path)}\0`).update(readFileSync(path));
  }
  return hash.digest('hex');
}

const wanted = inputsHash();
const built = existsSync(hashPath) ? readFileSync(hashPath, 'utf8').trim() : undefined;
if (built === wanted && existsSync(join(outDir, 'index.html'))) {
  console.log('build:console: web/ unchanged since the last build, skipped');
} else {
  execFileSync('npm', ['run', '--silent', 'build:console'], { cwd: root, stdio: 'inherit' });
  writeFileSync(hashPath, `${wanted}\n`);
}
