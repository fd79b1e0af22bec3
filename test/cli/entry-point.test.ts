// bin/meerkat.js chooses between the compiled dist/ and the TypeScript sources (docs/adr/0029). These run the real
// entry point as a child process, in a throwaway tree laid out like a checkout, with the repository's node_modules.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '../..');

let tree: string;
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(tree, path)), { recursive: true });
  writeFileSync(join(tree, path), text);
};
const meerkat = async (...args: string[]) =>
  (await run(process.execPath, [join(tree, 'bin/meerkat.js'), ...args], { encoding: 'utf8' })).stdout;
/** Sets a file's modification time SECONDS from now. */
const touch = (path: string, seconds: number) => {
  const at = new Date(Date.now() + seconds * 1000);
  utimesSync(join(tree, path), at, at);
};

describe('bin/meerkat.js', { timeout: 60_000 }, () => {
  beforeEach(() => {
    tree = mkdtempSync(join(tmpdir(), 'meerkat-entry-'));
    mkdirSync(join(tree, 'bin'));
    copyFileSync(join(repo, 'bin/meerkat.js'), join(tree, 'bin/meerkat.js'));
    symlinkSync(join(repo, 'node_modules'), join(tree, 'node_modules'));
    write('package.json', JSON.stringify({ name: 'meerkat', version: '9.8.7', type: 'module' }));
    write('hub/src/cli/main.ts', "console.log('from the sources' as string);\n");
    write('operator/src/operator.ts', 'export const operator: string = "o";\n');
    write('dist/hub/src/cli/main.js', "console.log('from dist');\n");
    write('dist/cli-help.txt', 'cached help\n');
    write('dist/.cli-build-stamp', 'now\n');
    touch('hub/src/cli/main.ts', -60);
    touch('operator/src/operator.ts', -60);
  });
  afterEach(() => rmSync(tree, { recursive: true, force: true }));

  it('runs dist/ while no source is newer than the build', async () => {
    expect(await meerkat('dev')).toBe('from dist\n');
    expect(await meerkat('--help')).toBe('cached help\n');
  });

  it('runs the sources once one of them changed after the build', async () => {
    touch('operator/src/operator.ts', 60);
    expect(await meerkat('dev')).toBe('from the sources\n');
    expect(await meerkat('--help')).toBe('from the sources\n');
  });

  it('runs the sources when there is no build stamp, and dist/ when there are no sources (the image)', async () => {
    rmSync(join(tree, 'dist/.cli-build-stamp'));
    expect(await meerkat('dev')).toBe('from the sources\n');
    rmSync(join(tree, 'hub'), { recursive: true });
    rmSync(join(tree, 'operator'), { recursive: true });
    expect(await meerkat('dev')).toBe('from dist\n');
  });

  it('answers --version from package.json without loading the CLI', async () => {
    rmSync(join(tree, 'dist'), { recursive: true });
    rmSync(join(tree, 'hub'), { recursive: true });
    expect(await meerkat('--version')).toBe('9.8.7\n');
  });
});
