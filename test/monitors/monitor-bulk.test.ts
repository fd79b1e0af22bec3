// POST /monitor/bulk against the real API and database (ADR 0054): each item is written as its PUT would be, a
// refused item refuses no other, a bad envelope refuses all, and the whole request costs one token of the rate limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { validMonitor } from './fixtures.js';

interface BulkAnswer {
  data: Array<{
    id: string;
    status: number;
    data?: { id: string; name: string; updatedAt: string };
    error?: { error: string; code: string; details?: Array<{ path: string; message: string }> };
  }>;
}

const monitor = (name: string, overrides: Record<string, unknown> = {}) =>
  validMonitor({ name, notifications: undefined, ...overrides });

describe('POST /monitor/bulk', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.close());

  const bulk = (monitors: unknown) =>
    hub.request('POST', '/monitor/bulk', { as: 'acmeEditor', body: { monitors } });

  it('writes 100 monitors in one request, answering each as its PUT would: 201, then 200 unchanged', async () => {
    const items = Array.from({ length: 100 }, (_, index) => ({
      id: `bulk-${index}`,
      definition: monitor(`bulk-${index}`),
    }));
    const created = await bulk(items);
    expect(created.status).toBe(200);
    const first = (await created.json()) as BulkAnswer;
    expect(first.data.map((result) => [result.id, result.status])).toEqual(items.map(({ id }) => [id, 201]));
    const stored = await hub.db.selectFrom('monitors').select('id').where('id', 'like', 'bulk-%').execute();
    expect(stored).toHaveLength(100);

    const again = (await (await bulk(items)).json()) as BulkAnswer;
    expect(again.data.every((result) => result.status === 200)).toBe(true);
    expect(again.data.map((result) => result.data?.updatedAt)).toEqual(
      first.data.map((result) => result.data?.updatedAt),
    );
    // As PUT /monitor/{id} reads them.
    const one = await hub.request('GET', '/monitor/bulk-42', { as: 'acmeEditor' });
    expect(((await one.json()) as { data: { name: string } }).data.name).toBe('bulk-42');
  });

  it('a refused item answers its own 4xx with {error, code, details}; the others are written', async () => {
    const answer = await bulk([
      { id: 'mixed-ok', definition: monitor('mixed-ok') },
      { id: 'mixed-bad', definition: monitor('mixed-bad', { frequency: { every: 0, unit: 'LIGHTYEAR' } }) },
      { id: 'mixed-clash', definition: monitor('mixed-ok') },
    ]);
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as BulkAnswer;
    expect(data.map((result) => [result.id, result.status, result.error?.code])).toEqual([
      ['mixed-ok', 201, undefined],
      ['mixed-bad', 400, 'validation_failed'],
      ['mixed-clash', 409, 'conflict'],
    ]);
    expect(data[1]?.error?.details?.[0]?.path).toMatch(/^frequency/);
    expect(data[2]?.error?.error).toContain('mixed-ok');
    const ids = await hub.db.selectFrom('monitors').select('id').where('id', 'like', 'mixed-%').execute();
    expect(ids.map((row) => row.id)).toEqual(['mixed-ok']);
  });

  it('answers an unchanged item from what is stored, writes a changed one, refuses a name another holds', async () => {
    await bulk([
      { id: 'same-1', definition: monitor('same-1') },
      { id: 'same-2', definition: monitor('same-2') },
    ]);
    const before = await hub.db
      .selectFrom('monitors')
      .selectAll()
      .where('id', 'like', 'same-%')
      .orderBy('id')
      .execute();
    const answer = await bulk([
      { id: 'same-1', definition: monitor('same-1') },
      { id: 'same-2', definition: monitor('same-2', { frequency: { every: 2, unit: 'HOUR' } }) },
      { id: 'same-3', definition: monitor('same-1') },
    ]);
    const { data } = (await answer.json()) as BulkAnswer;
    expect(data.map((result) => [result.id, result.status, result.error?.code])).toEqual([
      ['same-1', 200, undefined],
      ['same-2', 200, undefined],
      ['same-3', 409, 'conflict'],
    ]);
    expect(data[2]?.error?.error).toContain('same-1');
    const after = await hub.db
      .selectFrom('monitors')
      .selectAll()
      .where('id', 'like', 'same-%')
      .orderBy('id')
      .execute();
    expect(after.map((row) => row.id)).toEqual(['same-1', 'same-2']);
    expect(after[0]?.updated_at).toEqual(before[0]?.updated_at);
    expect(after[1]?.updated_at.getTime()).toBeGreaterThanOrEqual(
      before[1]?.updated_at.getTime() ?? Infinity,
    );
    expect(after[1]?.definition).toMatchObject({ frequency: { every: 2, unit: 'HOUR' } });
    expect(data[0]?.data?.updatedAt).toBe(before[0]?.updated_at.toISOString());
  });

  it('refuses a bad envelope whole with 400 naming the field, writing nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [[], 'monitors'],
      [
        Array.from({ length: 101 }, (_, index) => ({
          id: `over-${index}`,
          definition: monitor(`over-${index}`),
        })),
        'monitors',
      ],
      [
        [
          { id: 'twice', definition: monitor('twice-a') },
          { id: 'twice', definition: monitor('twice-b') },
        ],
        'monitors[1].id',
      ],
      [[{ id: 'no-definition' }], 'monitors[0].definition'],
    ];
    for (const [monitors, path] of cases) {
      const answer = await bulk(monitors);
      expect(answer.status).toBe(400);
      const body = (await answer.json()) as { error: string; code: string; details: Array<{ path: string }> };
      expect(body).toMatchObject({ code: 'validation_failed' });
      expect(body.details[0]?.path).toBe(path);
    }
    const written = await hub.db
      .selectFrom('monitors')
      .select('id')
      .where((eb) =>
        eb.or([eb('id', 'like', 'over-%'), eb('id', '=', 'twice'), eb('id', '=', 'no-definition')]),
      )
      .execute();
    expect(written).toEqual([]);
  });
});

describe('POST /monitor/bulk and the rate limit', () => {
  let hub: TestHub;
  beforeAll(async () => {
    // A bucket that refills too slowly to matter within the test: what is spent stays spent.
    const perCaller = { perSecond: 0.001, burst: 5 };
    hub = await startTestHub({ rateLimits: { perCaller, authFailuresPerMinute: 0, trustedProxyHops: 0 } });
  });
  afterAll(() => hub.close());

  it('costs one request of the caller’s rate limit however many monitors it writes', async () => {
    const monitors = Array.from({ length: 50 }, (_, index) => ({
      id: `cost-${index}`,
      definition: monitor(`cost-${index}`),
    }));
    const remaining = (answer: Response) => Number(answer.headers.get('ratelimit-remaining'));
    const before = remaining(await hub.request('GET', '/monitor/', { as: 'acmeEditor' }));
    const answer = await hub.request('POST', '/monitor/bulk', { as: 'acmeEditor', body: { monitors } });
    expect(answer.status).toBe(200);
    expect(remaining(answer)).toBe(before - 1);
    const stored = await hub.db.selectFrom('monitors').select('id').where('id', 'like', 'cost-%').execute();
    expect(stored).toHaveLength(50);
  });
});
