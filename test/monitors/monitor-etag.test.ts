// HTTP conditional requests on monitors (docs/adr/0046-monitor-etags.md), against a real hub and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { seedIntegrationsForEveryChannel } from '../notifications/notification-fixtures.js';
import { validMonitor } from './fixtures.js';

interface ErrorAnswer {
  error: string;
  code: string;
  details: Array<{ path: string; message: string }>;
}

describe('ETag and If-Match on monitors', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
    await seedIntegrationsForEveryChannel(hub.db);
  });
  afterAll(() => hub.close());

  async function create(id: string, name: string) {
    const res = await hub.request('PUT', `/monitor/${id}`, {
      as: 'acmeEditor',
      body: validMonitor({ name }),
    });
    expect(res.status).toBe(201);
    return res.headers.get('etag')!;
  }
  const storedRow = (id: string) =>
    hub.db.selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirst();

  it('GET by id and by name answer the same strong ETag, and a change gives a new one', async () => {
    const created = await create('etag-1', 'etag-one');
    expect(created).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const byId = await hub.request('GET', '/monitor/etag-1');
    const byName = await hub.request(
      'GET',
      '/monitor/by-name?project=shop&environment=production&name=etag-one',
    );
    expect(byId.headers.get('etag')).toBe(created);
    expect(byName.headers.get('etag')).toBe(created);
    const same = await hub.request('PUT', '/monitor/etag-1', { body: validMonitor({ name: 'etag-one' }) });
    expect(same.headers.get('etag')).toBe(created);
    const changed = await hub.request('PUT', '/monitor/etag-1', {
      body: validMonitor({ name: 'etag-one', frequency: { every: 10, unit: 'MINUTE' } }),
    });
    expect(changed.headers.get('etag')).not.toBe(created);
  });

  it('a PUT with a stale ETag is 412 precondition_failed and writes nothing; the current one is 200', async () => {
    const stale = await create('etag-2', 'etag-two');
    const current = (
      await hub.request('PUT', '/monitor/etag-2', {
        body: validMonitor({ name: 'etag-two', frequency: { every: 10, unit: 'MINUTE' } }),
      })
    ).headers.get('etag')!;
    const before = await storedRow('etag-2');
    const refused = await hub.request('PUT', '/monitor/etag-2', {
      headers: { 'if-match': stale },
      body: validMonitor({ name: 'etag-two', frequency: { every: 30, unit: 'MINUTE' } }),
    });
    expect(refused.status).toBe(412);
    const body = (await refused.json()) as ErrorAnswer;
    expect(body.code).toBe('precondition_failed');
    expect(body.details[0]?.path).toBe('If-Match');
    expect(await storedRow('etag-2')).toEqual(before);

    const accepted = await hub.request('PUT', '/monitor/etag-2', {
      headers: { 'if-match': `"other", ${current}` },
      body: validMonitor({ name: 'etag-two', frequency: { every: 30, unit: 'MINUTE' } }),
    });
    expect(accepted.status).toBe(200);
    expect((await storedRow('etag-2'))?.definition).toMatchObject({
      frequency: { every: 30, unit: 'MINUTE' },
    });
  });

  it('of two racing PUTs with one ETag exactly one wins; the loser gets 412 and leaves nothing of its own', async () => {
    const etag = await create('etag-race', 'etag-race');
    // Both bodies change the monitor (the fixture runs every 5 minutes): a no-op write keeps the ETag.
    const bodies = [10, 15].map((every) =>
      validMonitor({ name: 'etag-race', frequency: { every, unit: 'MINUTE' } }),
    );
    const answers = await Promise.all(
      bodies.map((body) => hub.request('PUT', '/monitor/etag-race', { headers: { 'if-match': etag }, body })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 412]);
    const winner = answers.findIndex((res) => res.status === 200);
    const stored = await storedRow('etag-race');
    expect(stored?.definition).toMatchObject({ frequency: bodies[winner]!.frequency });
    const loser = (await answers[1 - winner]!.json()) as ErrorAnswer;
    expect(loser.code).toBe('precondition_failed');
    expect((await hub.request('GET', '/monitor/etag-race')).headers.get('etag')).toBe(
      answers[winner]!.headers.get('etag'),
    );
  });

  it('If-Match: * writes only over an existing monitor; no header writes as before', async () => {
    await create('etag-3', 'etag-three');
    const overExisting = await hub.request('PUT', '/monitor/etag-3', {
      headers: { 'if-match': '*' },
      body: validMonitor({ name: 'etag-three', frequency: { every: 10, unit: 'MINUTE' } }),
    });
    expect(overExisting.status).toBe(200);
    const missing = await hub.request('PUT', '/monitor/etag-none', {
      headers: { 'if-match': '*' },
      body: validMonitor({ name: 'etag-none' }),
    });
    expect(missing.status).toBe(412);
    expect(await storedRow('etag-none')).toBeUndefined();
    const unconditional = await hub.request('PUT', '/monitor/etag-3', {
      body: validMonitor({ name: 'etag-three', frequency: { every: 20, unit: 'MINUTE' } }),
    });
    expect(unconditional.status).toBe(200);
  });

  it('a weak tag never matches, a malformed header is a 400 naming it, a dry run answers no strong ETag', async () => {
    const etag = await create('etag-4', 'etag-four');
    const body = validMonitor({ name: 'etag-four', frequency: { every: 10, unit: 'MINUTE' } });
    const weak = await hub.request('PUT', '/monitor/etag-4', { headers: { 'if-match': `W/${etag}` }, body });
    expect(weak.status).toBe(412);
    const malformed = await hub.request('PUT', '/monitor/etag-4', { headers: { 'if-match': 'abc' }, body });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as ErrorAnswer).details[0]?.path).toBe('If-Match');
    const dryRun = await hub.request('PUT', '/monitor/etag-4?dryRun=true', {
      headers: { 'if-match': etag },
      body,
    });
    expect(dryRun.status).toBe(200);
    // Express's own weak ETag of the body, which no If-Match can name.
    expect(dryRun.headers.get('etag')).toMatch(/^W\//);
    const staleDryRun = await hub.request('PUT', '/monitor/etag-4?dryRun=true', {
      headers: { 'if-match': '"stale"' },
      body,
    });
    expect(staleDryRun.status).toBe(412);
  });

  it('DELETE with a stale ETag is 412 and deletes nothing; with the current one it deletes', async () => {
    const stale = await create('etag-5', 'etag-five');
    const current = (
      await hub.request('PUT', '/monitor/etag-5', {
        body: validMonitor({ name: 'etag-five', frequency: { every: 10, unit: 'MINUTE' } }),
      })
    ).headers.get('etag')!;
    const refused = await hub.request('DELETE', '/monitor/etag-5', { headers: { 'if-match': stale } });
    expect(refused.status).toBe(412);
    expect(await storedRow('etag-5')).toBeDefined();
    const deleted = await hub.request('DELETE', '/monitor/etag-5', { headers: { 'if-match': current } });
    expect(deleted.status).toBe(204);
    expect(await storedRow('etag-5')).toBeUndefined();
    const gone = await hub.request('DELETE', '/monitor/etag-5', { headers: { 'if-match': current } });
    expect(gone.status).toBe(404);
  });
});
