// `meerkat admin quotas`: a platform admin's view and overrides of organizations' quotas, as real CLI processes
// against the real API and PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../hub/src/http/listen.js';
import { NO_QUOTAS } from '../../hub/src/quotas/organization-quotas.js';
import type { OrganizationQuotaState } from '../../hub/src/quotas/quota.schema.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { runMeerkat } from '../harness/processes.js';

describe('meerkat admin quotas', { timeout: 240_000 }, () => {
  let hub: TestHub;
  let work: string;
  const as =
    (key: string) =>
    (...args: string[]) =>
      runMeerkat(args, { MEERKAT_URL: hub.url, MEERKAT_API_KEY: key, MEERKAT_CONFIG: join(work, 'none') });
  let platform: ReturnType<typeof as>;

  beforeAll(async () => {
    hub = await startTestHub({
      quotas: {
        policy: { defaults: { ...NO_QUOTAS, monitors: 100 }, runRetentionDays: 30 },
        platformAdminOrganization: 'meerkat-platform',
      },
    });
    work = mkdtempSync(join(tmpdir(), 'meerkat-admin-'));
    platform = as(hub.keys.platformAdmin);
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await hub.close();
  });

  it('shows each quota of an organization with its default, override, value in force and usage', async () => {
    const shown = await platform('admin', 'quotas', 'get', 'acme');
    expect([shown.code, shown.stderr]).toEqual([0, '']);
    const lines = shown.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^QUOTA\s+DEFAULT\s+OVERRIDE\s+IN FORCE\s+USAGE$/);
    expect(lines).toContainEqual(expect.stringMatching(/^monitors\s+100\s+-\s+100\s+0$/));
    expect(lines).toContainEqual(expect.stringMatching(/^requestsPerSecond\s+off\s+-\s+off\s+-$/));
  });

  it('sets the flags given, keeps the other overrides, drops one with --default, and resets them all', async () => {
    const first = await platform('admin', 'quotas', 'set', 'acme', '--monitors', '500', '--runs-kept', '0');
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toMatch(/^monitors\s+100\s+500\s+500\s+0$/m);
    const second = await platform(
      'admin',
      'quotas',
      'set',
      'acme',
      '--requests-per-second',
      '2.5',
      '-o',
      'json',
    );
    expect(second.code).toBe(0);
    const state = JSON.parse(second.stdout) as OrganizationQuotaState;
    expect(state.overrides).toEqual({ monitors: 500, runsKept: 0, requestsPerSecond: 2.5 });
    expect(state.effective).toMatchObject({ monitors: 500, requestsPerSecond: 2.5 });
    // What the hub stored, read through the API, not the CLI.
    const stored = await hub.request('GET', '/admin/organizations/acme/quotas', { as: 'platformAdmin' });
    expect(((await stored.json()) as { data: OrganizationQuotaState }).data.overrides).toEqual(
      state.overrides,
    );

    const dropped = await platform('admin', 'quotas', 'set', 'acme', '-o', 'json', '--default', 'runsKept');
    expect(dropped.code).toBe(0);
    expect((JSON.parse(dropped.stdout) as OrganizationQuotaState).overrides).toEqual({
      monitors: 500,
      requestsPerSecond: 2.5,
    });

    const listed = await platform('admin', 'quotas', 'get');
    expect(listed.stdout).toMatch(/^ORGANIZATION\s+OVERRIDES\s+UPDATED BY\s+UPDATED AT$/m);
    expect(listed.stdout).toMatch(/^acme\s+monitors=500,requestsPerSecond=2\.5\s+\S+/m);

    const reset = await platform('admin', 'quotas', 'reset', 'acme');
    expect([reset.code, reset.stdout]).toEqual([0, 'quotas of acme reset to the defaults\n']);
    expect(await hub.db.selectFrom('organization_quotas').selectAll().execute()).toEqual([]);
  });

  it('refuses a value the admin API would refuse before asking it, naming the flag', async () => {
    for (const [flag, value] of [
      ['--monitors', '-1'],
      ['--locations-per-monitor', '2.5'],
      ['--runs-kept', 'lots'],
    ]) {
      const refused = await platform('admin', 'quotas', 'set', 'acme', flag!, value!);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${flag} ${value}:`);
    }
    const nothing = await platform('admin', 'quotas', 'set', 'acme');
    expect([nothing.code, nothing.stderr]).toEqual([
      2,
      expect.stringContaining('give a quota to set') as unknown,
    ]);
    expect(await hub.db.selectFrom('organization_quotas').selectAll().execute()).toEqual([]);
  });

  it("says the hub's 403 in one line to an organization's own admin", async () => {
    const refused = await as(hub.keys.acmeAdmin)('admin', 'quotas', 'get', 'acme');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('PLATFORM_ADMIN_ORGANIZATION');
  });

  it('merges again when another admin writes between its read and its PUT, keeping both changes', async () => {
    // A loopback proxy in front of the hub: before it passes on the CLI's first PUT, another admin's write lands,
    // so that PUT names a version that is gone (If-Match) and the hub answers 412.
    const quotasPath = '/admin/organizations/racing/quotas';
    let interleaved = false;
    const statuses: string[] = [];
    const proxy = createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        if (req.method === 'PUT' && !interleaved) {
          interleaved = true;
          const other = await hub.request('PUT', quotasPath, { as: 'platformAdmin', body: { monitors: 42 } });
          expect(other.status).toBe(200);
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === 'string' && name !== 'host' && name !== 'content-length')
            headers.set(name, value);
        const answer = await fetch(hub.url + (req.url ?? '/'), {
          method: req.method ?? 'GET',
          headers,
          body: chunks.length === 0 ? null : Buffer.concat(chunks),
        });
        statuses.push(`${req.method ?? ''} ${answer.status}`);
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
    const listening = await listen(proxy, 0, '127.0.0.1');
    try {
      const set = await runMeerkat(
        ['admin', 'quotas', 'set', 'racing', '--runs-kept', '1000', '-o', 'json'],
        {
          MEERKAT_URL: listening.url,
          MEERKAT_API_KEY: hub.keys.platformAdmin,
          MEERKAT_CONFIG: join(work, 'none'),
        },
      );
      expect([set.code, set.stderr]).toEqual([0, '']);
      expect(statuses).toEqual(['GET 200', 'PUT 412', 'GET 200', 'PUT 200']);
      expect((JSON.parse(set.stdout) as OrganizationQuotaState).overrides).toEqual({
        monitors: 42,
        runsKept: 1000,
      });
    } finally {
      await listening.close();
    }
  });
});
