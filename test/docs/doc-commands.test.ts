// Every command block of README.md, NOTES.txt and docs/*.md (issue 35) is accounted for in doc-command-ledger.ts:
// run by an existing doc test, run here as written, or skipped with a reason. A block the ledger does not name, or
// an entry whose block is gone, fails here, so the docs cannot gain or change a command no one looked at.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meerkatBin, startMeerkatDev, type MeerkatDev } from '../harness/processes.js';
import { docCommandBlocks, repo, type CommandBlock } from './doc-command-blocks.js';
import { ledger } from './doc-command-ledger.js';
import { loadSettings } from '../../hub/src/config/settings.js';
import { loadOperatorSettings } from '../../operator/src/operator-settings.js';
import { parseProjectPolicy } from '../../operator/src/project-tenancy.js';

const blocks = docCommandBlocks();
const keyOf = ({ file, first }: { file: string; first: string }) => `${file}: ${first}`;

// A reader's shell with `meerkat` on the PATH (as `npm install -g` or the image gives it), in the repository.
const binDir = mkdtempSync(join(tmpdir(), 'meerkat-doc-commands-'));
symlinkSync(meerkatBin, join(binDir, 'meerkat'));
afterAll(() => rmSync(binDir, { recursive: true, force: true }));

function runAsWritten(script: string, env: Record<string, string> = {}) {
  const shell = spawnSync('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script], {
    cwd: repo,
    encoding: 'utf8',
    env: { PATH: `${binDir}:${process.env.PATH ?? ''}`, HOME: binDir, ...env },
    timeout: 120_000,
  });
  expect(shell.status, shell.stderr).toBe(0);
  return shell.stdout;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A `console` block: `$ ` lines are run, the others are their output, `...` standing for any text. */
function runConsole(block: CommandBlock) {
  const commands = block.text.split('\n').filter((line) => line.startsWith('$ '));
  const expected = block.text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('$ '));
  const output = runAsWritten(commands.map((line) => line.slice(2)).join('\n'));
  for (const line of expected) {
    // `mk_3q0...` is any key: the prefix before its `_` stays, the example characters and `...` match anything.
    const pattern = line
      .split(/([a-z]+_)?[A-Za-z0-9]*\.\.\./)
      .map((part, index) => (index % 2 === 1 ? `${part ?? ''}\\S*` : escapeRegExp(part ?? '')))
      .join('')
      .replace(/[0-9a-f]{64}/g, '[0-9a-f]{64}');
    expect(output).toMatch(new RegExp(`^${pattern}$`, 'm'));
  }
}

/** The variables a block of settings assigns, as bash assigns them when it runs the block as written. */
function assignedBy(block: CommandBlock): Record<string, string> {
  const names = [...block.text.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!);
  const printed = runAsWritten(
    `${block.text}\n${names.map((name) => `printf '%s=%s\\n' ${name} "$${name}"`).join('\n')}`,
  );
  return Object.fromEntries(
    printed
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('the command blocks of the docs', () => {
  it('each has one ledger entry, and each entry a block', () => {
    const inLedger = ledger.map(keyOf);
    expect(blocks.map(keyOf).filter((key) => !inLedger.includes(key))).toEqual([]);
    expect(inLedger.filter((key) => !blocks.some((block) => keyOf(block) === key))).toEqual([]);
    expect(new Set(inLedger).size).toBe(inLedger.length);
  });

  it('names existing tests for the blocks other tests run, and a reason for each skipped one', () => {
    for (const entry of ledger) {
      if ('runBy' in entry) expect(existsSync(join(repo, entry.runBy)), entry.runBy).toBe(true);
      if ('skip' in entry) expect(entry.skip.length, keyOf(entry)).toBeGreaterThan(10);
      if ('coveredBy' in entry && entry.coveredBy !== undefined)
        expect(existsSync(join(repo, entry.coveredBy)), entry.coveredBy).toBe(true);
    }
    console.log(
      `[doc commands] ${blocks.length} blocks: ${ledger.filter((e) => 'runBy' in e).length} run by other tests, ` +
        `${ledger.filter((e) => 'here' in e).length} here, ${ledger.filter((e) => 'dev' in e).length} against ` +
        `meerkat dev, ${ledger.filter((e) => 'settings' in e).length} settings, ` +
        `${ledger.filter((e) => 'skip' in e).length} skipped`,
    );
    // The skipped blocks and why, in the test's output (docs/development.md): what each needs that is not here.
    for (const entry of ledger)
      if ('skip' in entry)
        console.log(
          `[doc commands] skipped ${keyOf(entry)}\n    why: ${entry.skip}` +
            (entry.coveredBy === undefined ? '' : `\n    the same commands run in: ${entry.coveredBy}`),
        );
  });

  const here = ledger.filter((entry) => 'here' in entry);
  // Each may take as long as runAsWritten lets the shell take: install.md's block starts the CLI twice.
  it.each(here.map((entry) => [keyOf(entry), entry] as const))(
    'runs %s as written',
    (_key, entry) => {
      const block = blocks.find((each) => keyOf(each) === keyOf(entry));
      if (block === undefined) throw new Error(`no block ${keyOf(entry)}`);
      if (block.text.startsWith('$ ')) return runConsole(block);
      const output = runAsWritten(block.text);
      // What these blocks promise: keys with their AUTH_API_KEYS entries (and, in install.md, a SECRETS_KEY).
      expect(output).toMatch(/^key: +mk_\S+$/m);
      expect(output).toMatch(/^entry: acme:(admin|editor):[0-9a-f]{64}$/m);
      if (block.first.startsWith('openssl rand')) expect(output).toMatch(/^[0-9a-f]{64}$/m);
    },
    120_000,
  );

  const settings = ledger.filter((entry) => 'settings' in entry);
  it.each(settings.map((entry) => [keyOf(entry), entry] as const))(
    'runs %s and the process accepts the settings',
    (_key, entry) => {
      const block = blocks.find((each) => keyOf(each) === keyOf(entry));
      if (block === undefined || !('settings' in entry)) throw new Error(`no block ${keyOf(entry)}`);
      const assigned = assignedBy(block);
      expect(Object.keys(assigned).length).toBeGreaterThan(0);
      for (const value of Object.values(assigned)) expect(value).not.toBe('');
      // The parser of the process the page configures reads each back as written (InvalidSettingError otherwise).
      const hub = { MEERKAT_URL: 'http://127.0.0.1:3000', MEERKAT_API_KEY: 'mk_doc' };
      const parsed: Record<string, unknown> =
        entry.settings === 'hub'
          ? loadSettings(assigned, 'dev')
          : loadOperatorSettings({ ...hub, ...assigned });
      for (const [name, value] of Object.entries(assigned)) {
        const read = parsed[name];
        expect(Array.isArray(read) ? read.join(',') : read, name).toBe(value);
      }
      if (assigned.OPERATOR_NAMESPACE_PROJECTS !== undefined)
        expect(() => parseProjectPolicy(assigned.OPERATOR_NAMESPACE_PROJECTS!)).not.toThrow();
    },
  );
});

// The blocks that call the hub, as a reader runs them after the README's quick start: with the variables their
// pages name set to a fresh `meerkat dev`, whose port (free, not 3000) replaces the blocks' 127.0.0.1:3000.
describe('the command blocks that call a hub', () => {
  let dev: MeerkatDev;
  beforeAll(async () => {
    dev = await startMeerkatDev({}, 300_000);
  }, 360_000);
  afterAll(() => dev?.stop());

  const calls = ledger.filter((entry) => 'dev' in entry);
  it.each(calls.map((entry) => [keyOf(entry), entry] as const))(
    'runs %s against meerkat dev',
    (_key, entry) => {
      const block = blocks.find((each) => keyOf(each) === keyOf(entry));
      if (block === undefined) throw new Error(`no block ${keyOf(entry)}`);
      const output = runAsWritten(block.text.replaceAll('http://127.0.0.1:3000', dev.api), {
        HUB: dev.api,
        KEY: dev.key,
        MEERKAT_KEY: dev.key,
        MEERKAT_URL: dev.api,
        MEERKAT_API_KEY: dev.key,
      });
      // curl without -f exits 0 on a refusal too: the hub's answer must be data, not an error.
      expect(JSON.parse(output), output).toHaveProperty('data');
    },
  );
});
