import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../hub/src/db/migrations/index.js';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../harness/database.js';
import { freePort, runMeerkat, startMeerkat } from '../harness/processes.js';

const secretsKey = 'ab'.repeat(32);

describe('meerkat keygen', () => {
  it('prints a key and the AUTH_API_KEYS entry holding only its hash', async () => {
    const { code, stdout } = await runMeerkat(['keygen', '--org', 'acme', '--role', 'editor']);
    expect(code).toBe(0);
    const key = /^key: +(mk_[A-Za-z0-9_-]{43})$/m.exec(stdout)?.[1] ?? '';
    const entry = /^entry: +(\S+)$/m.exec(stdout)?.[1];
    expect(entry).toBe(`acme:editor:${createHash('sha256').update(key).digest('hex')}`);
  });

  it('refuses a role that does not exist', async () => {
    const { code, stderr } = await runMeerkat(['keygen', '--org', 'acme', '--role', 'god']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/--role <role>.*god.*Allowed choices are viewer, editor, admin, service/s);
  });
});

// Several CLI processes one after another: each starts tsx and loads the sources, seconds apiece on a busy machine.
describe('meerkat hub and meerkat migrate', { timeout: 180_000 }, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('stops on an invalid setting with one line naming it', async () => {
    const { code, stderr } = await runMeerkat(['hub'], { PORT: 'eighty' });
    expect(code).toBe(2);
    expect(stderr).toBe(
      'meerkat: invalid setting PORT: must be a port number from 1 to 65535 (got "eighty")\n',
    );
  });

  it('refuses to start on a database that is behind, then serves once migrated', async () => {
    const keygen = await runMeerkat(['keygen', '--org', 'acme', '--role', 'viewer']);
    const key = /^key: +(\S+)$/m.exec(keygen.stdout)?.[1] ?? '';
    const entry = /^entry: +(\S+)$/m.exec(keygen.stdout)?.[1] ?? '';
    const port = await freePort();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      AUTH_API_KEYS: entry,
      SECRETS_KEY: secretsKey,
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      HOST: '127.0.0.1',
    };

    const names = Object.keys(migrations);
    const behind = await runMeerkat(['hub'], env);
    expect(behind.code).toBe(1);
    expect(behind.stderr).toBe(
      `meerkat: the database is behind by ${names.length} migration(s) (${names.join(', ')}): run \`meerkat migrate\`\n`,
    );

    const migrate = await runMeerkat(['migrate'], { DATABASE_URL: database.url });
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain(`applied ${names.join(', ')}`);
    expect((await runMeerkat(['migrate'], { DATABASE_URL: database.url })).stdout).toContain(
      'already up to date',
    );

    const hub = await startMeerkat(['hub'], { ...env, LOG_LEVEL: 'info' }, /hub API listening/);
    try {
      const withKey = await fetch(`http://127.0.0.1:${port}/connections`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(withKey.status).toBe(200);
      const withoutKey = await fetch(`http://127.0.0.1:${port}/connections`);
      expect(await withoutKey.json()).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'authorization header is missing',
      });
      expect(hub.output()).not.toContain(key);
    } finally {
      await hub.stop();
    }
  });
});

describe('meerkat dev', { timeout: 180_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'meerkat-dev-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints a key it keeps, and its data survives a restart', async () => {
    const port = await freePort();
    const env = { MEERKAT_DATA_DIR: dataDir, PORT: String(port), METRICS_PORT: String(await freePort()) };
    const keyLine = /API key \(organization "dev", role admin[^)]*\): (mk_\S+)/;

    const first = await startMeerkat(['dev'], env, /Try: curl .*\n/);
    const key = keyLine.exec(first.output())?.[1] ?? '';
    expect(first.output()).toContain(
      `curl -H "Authorization: Bearer ${key}" http://127.0.0.1:${port}/connections`,
    );
    const created = await fetch(`http://127.0.0.1:${port}/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: 'cloud',
        authMethod: 'smtp',
        credentials: { host: 'mail.local', port: 25 },
      }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string } };
    await first.stop();

    const second = await startMeerkat(['dev'], env, /Try: curl .*\n/);
    try {
      expect(keyLine.exec(second.output())?.[1]).toBe(key);
      expect(second.output()).not.toContain('created now');
      const fetched = await fetch(`http://127.0.0.1:${port}/connections/${data.id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(fetched.status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
