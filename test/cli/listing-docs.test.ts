// Every command docs/cli.md ("kubectl's listing flags", `edit`, `completion`) and docs/monitors.md ("Labels") show
// for issue 35's listing flags runs as written, through bash, against a hub holding the example of docs/monitors.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished, meerkatBin, runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';

const docs = (file: string) => readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8');

/** The fenced blocks of `language` between `heading` and the next heading of its level or above. */
function blocksUnder(text: string, heading: string, language: string): string[] {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const level = heading.split(' ')[0]!;
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

const commandLines = (blocks: string[]) =>
  blocks.flatMap((block) => block.split('\n')).filter((line) => /^(meerkat |source )/.test(line));

// These never end by themselves (-w runs until interrupted): labels-watch.test.ts starts each with these exact
// arguments, sees a row arrive, and stops it.
const WATCHES = ['meerkat get runs -w', 'meerkat get monitors -w --no-headers'];

describe("the docs' commands for kubectl's listing flags", { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  const cliSections = [
    "### kubectl's listing flags",
    '## `meerkat edit monitor NAME`',
    '## `meerkat completion bash|zsh|fish`',
  ];
  const commands = [
    ...cliSections.flatMap((heading) => commandLines(blocksUnder(docs('cli.md'), heading, 'sh'))),
    ...commandLines(blocksUnder(docs('monitors.md'), '### Labels', 'sh')),
  ];

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-listing-docs-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
    const [example] = blocksUnder(docs('monitors.md'), '### Labels', 'yaml');
    const applied = await runMeerkat(['apply', '-f', '-'], env, example);
    expect(applied.code, applied.stderr).toBe(0);
    const other = await hub.request('POST', '/monitor/', {
      as: 'acmeEditor',
      body: monitorDefinition({
        project: 'shop',
        environment: 'default',
        name: 'checkout',
        labels: { team: 'shop', tier: '2' },
        nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }],
        edges: [],
      }),
    });
    const { data } = (await other.json()) as { data: { id: string } };
    await hub.request('POST', `/runs/trigger/${data.id}`, {
      as: 'acmeEditor',
      body: { environment: 'default' },
    });
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('finds the commands, and the watches are the ones labels-watch.test.ts runs', () => {
    expect(commands.length).toBeGreaterThanOrEqual(10);
    expect(commands.filter((line) => / -w\b/.test(line))).toEqual(WATCHES);
  });

  it('runs every other command as written, each exiting 0 with output', async () => {
    for (const line of commands.filter((command) => !WATCHES.includes(command))) {
      // `meerkat` as a person's shell has it; EDITOR=true saves the file unchanged, so edit cancels.
      const script = `meerkat() { "${process.execPath}" "${meerkatBin}" "$@"; }\n${line}\n${
        line.startsWith('source ') ? 'complete -p meerkat\n' : ''
      }`;
      // Not spawnSync: the test hub answers from this process's event loop.
      const result = await finished(
        spawn('bash', ['-c', script], {
          env: { PATH: process.env.PATH, HOME: process.env.HOME, EDITOR: 'true', ...env },
        }),
      );
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      expect(result.stderr, line).toBe('');
      expect(result.stdout.trim(), line).not.toBe('');
    }
  });
});
