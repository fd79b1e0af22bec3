// `meerkat edit` losing a race the updatedAt comparison could not see: the hub's clock stands still, so a change
// made while the editor is open keeps updatedAt and only the ETag tells the versions apart (ADR 0046). Real CLI
// processes against the real API.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meerkatBin, runMeerkat } from '../harness/processes.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');

describe('meerkat edit when the monitor changes while the editor is open', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;

  beforeAll(async () => {
    hub = await startTestHub({ clock: { now: () => NOW } });
    work = mkdtempSync(join(tmpdir(), 'meerkat-edit-race-'));
    const body = monitorDefinition({
      name: 'still',
      nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }],
      edges: [],
    });
    expect((await hub.request('PUT', '/monitor/mon_still', { as: 'acmeEditor', body })).status).toBe(201);
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('exits 1 saying so in one line, keeps the edited file, and leaves the other change in place', async () => {
    const env = {
      MEERKAT_URL: hub.url,
      MEERKAT_API_KEY: hub.keys.acmeEditor,
      MEERKAT_CONFIG: join(work, 'none'),
    };
    const cli = `"${process.execPath}" "${meerkatBin}"`;
    const editor = join(work, 'race.sh');
    // The editor's change (every: 7), and meanwhile someone else's (every: 8), written at the same instant.
    writeFileSync(
      editor,
      `#!/bin/sh\nsed -i 's/every: 5/every: 7/' "$1"\n` +
        `${cli} get monitor still -o yaml | sed 's/every: 5/every: 8/' | ${cli} apply -f - > /dev/null\n`,
    );
    chmodSync(editor, 0o755);
    const before = await hub.request('GET', '/monitor/mon_still');
    const { code, stdout, stderr } = await runMeerkat(['edit', 'monitor', 'still'], {
      ...env,
      EDITOR: editor,
    });

    expect(code).toBe(1);
    expect(stdout).toBe('');
    const [line, ...more] = stderr.split('\n').filter((each) => each !== '');
    expect(more).toEqual([]);
    const kept = /your edit is kept in (\S+still\.yaml)$/.exec(line ?? '')?.[1];
    expect(line).toMatch(
      /^meerkat: monitor still changed on the hub while you edited it; nothing was changed/,
    );
    expect(kept !== undefined && existsSync(kept)).toBe(true);
    expect(readFileSync(kept!, 'utf8')).toMatch(/every: 7/);

    const after = await hub.request('GET', '/monitor/mon_still');
    const stored = ((await after.json()) as { data: { frequency: { every: number }; updatedAt: string } })
      .data;
    expect(stored.frequency.every).toBe(8);
    // The race the updatedAt comparison missed: the same updatedAt, another version.
    expect(stored.updatedAt).toBe(NOW.toISOString());
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    rmSync(kept!, { force: true });
  });
});
