// `meerkat edit monitor NAME` with EDITOR set to small scripts, and `meerkat completion bash|zsh|fish`; real CLI
// processes against the real API (docs/cli.md).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meerkatBin, runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';

const wait = { nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }], edges: [] };

describe('meerkat edit and meerkat completion', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  let env: Record<string, string>;
  let id = '';
  const meerkat = (args: string[], editor?: string) =>
    runMeerkat(args, editor === undefined ? env : { ...env, EDITOR: editor });
  const stored = async () =>
    (
      (await (await hub.request('GET', `/monitor/${id}`, { as: 'acmeViewer' })).json()) as {
        data: { frequency: { every: number }; updatedAt: string; labels?: Record<string, string> };
      }
    ).data;
  /** An editor: a shell script run with the file's path as $1. */
  function editor(name: string, body: string): string {
    const path = join(work, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  beforeAll(async () => {
    hub = await startTestHub();
    work = mkdtempSync(join(tmpdir(), 'meerkat-edit-'));
    env = { MEERKAT_URL: hub.url, MEERKAT_API_KEY: hub.keys.acmeEditor, MEERKAT_CONFIG: join(work, 'none') };
    const created = await hub.request('POST', '/monitor/', {
      as: 'acmeEditor',
      body: monitorDefinition({ name: 'cart', ...wait }),
    });
    id = ((await created.json()) as { data: { id: string } }).data.id;
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('applies the edited document, labels under metadata included', async () => {
    const edit = editor(
      'change.sh',
      `sed -i -e 's/every: 5/every: 7/' -e 's/^  namespace: shop$/  namespace: shop\\n  labels: { team: shop }/' "$1"`,
    );
    const { code, stdout, stderr } = await meerkat(['edit', 'monitor', 'cart'], edit);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe('monitor shop/production/cart edited\n');
    const after = await stored();
    expect(after.frequency.every).toBe(7);
    expect(after.labels).toEqual({ team: 'shop' });
  });

  it('an unchanged file, or an emptied one, is "edit cancelled, no changes made"', async () => {
    const before = await stored();
    for (const edit of [editor('keep.sh', 'true'), editor('empty.sh', ': > "$1"')]) {
      const { code, stdout } = await meerkat(['edit', 'monitor', 'cart'], edit);
      expect(code).toBe(0);
      expect(stdout).toBe('edit cancelled, no changes made\n');
    }
    expect((await stored()).updatedAt).toBe(before.updatedAt);
  });

  it('writes nothing when the document is invalid, the hub refuses it, or the monitor changed meanwhile', async () => {
    const before = await stored();
    const invalid = await meerkat(
      ['edit', 'monitor', 'cart'],
      editor('zero.sh', `sed -i 's/every: 7/every: 0/' "$1"`),
    );
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/spec\.frequency\.every: /);
    expect(invalid.stderr).toMatch(/meerkat: nothing was changed; your edit is kept in \S+cart\.yaml/);
    const refused = await meerkat(
      ['edit', 'monitor', 'cart'],
      editor(
        'location.sh',
        `sed -i 's/^  locations:.*$//; s/^  environment: production$/  environment: production\\n  locations: [mars]/' "$1"`,
      ),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/locations/);
    expect((await stored()).updatedAt).toBe(before.updatedAt);
    // Someone else changes the monitor while the editor is open: their change stays, the edit is refused.
    const racing = editor(
      'race.sh',
      `sed -i 's/every: 7/every: 9/' "$1"\n"${process.execPath}" "${meerkatBin}" get monitor cart -o yaml | sed 's/every: 7/every: 8/' | "${process.execPath}" "${meerkatBin}" apply -f - > /dev/null`,
    );
    const raced = await meerkat(['edit', 'monitor', 'cart'], racing);
    expect(raced.code).toBe(1);
    expect(raced.stderr).toMatch(/changed on the hub while you edited it; nothing was changed/);
    expect((await stored()).frequency.every).toBe(8);
  });

  it('edit of another type, or an editor that fails, exits 2', async () => {
    expect((await meerkat(['edit', 'run', 'x'], editor('keep2.sh', 'true'))).code).toBe(2);
    const failing = await meerkat(['edit', 'monitor', 'cart'], editor('fail.sh', 'exit 3'));
    expect(failing.code).toBe(2);
    expect(failing.stderr).toMatch(/^meerkat: the editor .* failed \(exit 3\); nothing was changed\n$/);
  });

  it('completion bash: bash sources it, `complete -p meerkat` exists, and it completes commands and flags', async () => {
    const { code, stdout } = await runMeerkat(['completion', 'bash']);
    expect(code).toBe(0);
    for (const command of [
      'apply',
      'get',
      'describe',
      'delete',
      'diff',
      'edit',
      'logs',
      'version',
      'completion',
    ])
      expect(stdout).toContain(` ${command} `);
    const script = join(work, 'meerkat.bash');
    writeFileSync(script, stdout);
    const probe = [
      `source ${script}`,
      'complete -p meerkat',
      'COMP_WORDS=(meerkat ge); COMP_CWORD=1; _meerkat; echo "1: ${COMPREPLY[*]}"',
      'COMP_WORDS=(meerkat get mai); COMP_CWORD=2; _meerkat; echo "2: ${COMPREPLY[*]}"',
      'COMP_WORDS=(meerkat get monitors --so); COMP_CWORD=3; _meerkat; echo "3: ${COMPREPLY[*]}"',
      'COMP_WORDS=(meerkat get runs -o custom); COMP_CWORD=4; _meerkat; echo "4: ${COMPREPLY[*]}"',
    ].join('\n');
    const bash = spawnSync('bash', ['-c', probe], { encoding: 'utf8' });
    expect(bash.stderr).toBe('');
    expect(bash.stdout).toBe(
      [
        'complete -o default -F _meerkat meerkat',
        '1: get',
        '2: maintenancewindows maintenancewindow',
        '3: --sort-by',
        '4: custom-columns=',
        '',
      ].join('\n'),
    );
  });

  it('completion zsh and fish print their scripts; another shell exits 2', async () => {
    const zsh = await runMeerkat(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef meerkat\n/);
    expect(zsh.stdout).toContain('complete -o default -F _meerkat meerkat');
    const fish = await runMeerkat(['completion', 'fish']);
    expect(fish.stdout).toMatch(/complete -c meerkat -n __fish_use_subcommand -a "[^"]*\bedit\b/);
    expect(fish.stdout).toContain(
      'complete -c meerkat -n "__fish_seen_subcommand_from get; and __fish_seen_subcommand_from monitors" -s w',
    );
    expect((await runMeerkat(['completion', 'tcsh'])).code).toBe(2);
  });
});
