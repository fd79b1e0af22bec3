// The one way generated files are kept: `npm run gen` writes them, `npm run gen:check` (part of `npm run check`)
// fails naming each one that differs from what its source would generate now. Generated files say DO NOT EDIT.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GeneratedFile {
  /** Path from the repository root. */
  path: string;
  /** What the file must hold; undefined means it must not exist. */
  content: string | undefined;
}

export const repoPath = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

export function readIfPresent(path: string): string | undefined {
  return existsSync(repoPath(path)) ? readFileSync(repoPath(path), 'utf8') : undefined;
}

export function syncGeneratedFiles(
  files: readonly GeneratedFile[],
  checkOnly = process.argv.includes('--check'),
): void {
  const drifted: string[] = [];
  for (const { path, content } of files) {
    if (readIfPresent(path) === content) continue;
    if (checkOnly) drifted.push(path);
    else if (content === undefined) rmSync(repoPath(path));
    else {
      mkdirSync(dirname(repoPath(path)), { recursive: true });
      writeFileSync(repoPath(path), content);
    }
  }
  if (drifted.length > 0) {
    process.stderr.write(`out of date: ${drifted.join(', ')}: run \`npm run gen\` and commit them\n`);
    process.exit(1);
  }
  process.stdout.write(`${checkOnly ? 'up to date' : 'generated'}: ${files.map((f) => f.path).join(', ')}\n`);
}
