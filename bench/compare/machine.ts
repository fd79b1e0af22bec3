// What a benchmark's figures were measured on: the machine, and the commit of the code.
import { spawnSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

/** The commit measured, and whether the working tree differs from it (`e9c8bac-dirty`). */
function codeVersion(): string {
  const described = spawnSync('git', ['describe', '--always', '--dirty'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return described.status === 0 ? described.stdout.trim() : 'unknown (not a git checkout)';
}

/** `machine: 2 cores (model), 8 GiB, node v20...; <now>; code <commit>`. */
export function machineLine(): string {
  return (
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
    `node ${process.version}; ${new Date().toISOString()}; code ${codeVersion()}`
  );
}
