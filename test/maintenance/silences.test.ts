import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Silence } from '../../hub/src/maintenance/maintenance.schema.js';
import { putMonitor } from '../notifications/notification-fixtures.js';
import { startMaintenanceBed, type MaintenanceBed } from './maintenance-fixtures.js';

const runFailed = [
  { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, cooldownMinutes: 0 },
];

describe('silences', () => {
  let bed: MaintenanceBed;
  const createSilence = (body: Record<string, unknown>) => bed.post<Silence>('/silences', body);

  beforeAll(async () => {
    bed = await startMaintenanceBed();
  });
  afterAll(() => bed.close());

  it('POST makes a silence from a duration, by the caller, and DELETE expires it and keeps it for audit', async () => {
    bed.setNow(new Date('2026-03-01T10:00:00Z'));
    const created = await createSilence({
      matchers: [{ label: 'monitor', values: ['checkout'] }],
      duration: '2h',
      comment: 'deploying',
    });
    expect(created.status).toBe(201);
    const silence = created.body.data;
    expect(silence).toMatchObject({
      startsAt: '2026-03-01T10:00:00.000Z',
      endsAt: '2026-03-01T12:00:00.000Z',
      comment: 'deploying',
      state: 'active',
      expiredBy: null,
      matchers: [{ label: 'monitor', operator: '=', values: ['checkout'] }],
    });
    expect(silence.createdBy).not.toBe('');
    expect((await bed.get<Silence[]>('/silences?state=active')).body.data.map((s) => s.id)).toContain(
      silence.id,
    );

    bed.setNow(new Date('2026-03-01T10:30:00Z'));
    const expired = await bed.del<Silence>(`/silences/${silence.id}`);
    expect(expired.status).toBe(200);
    expect(expired.body.data).toMatchObject({ state: 'expired', endsAt: '2026-03-01T10:30:00.000Z' });
    expect(expired.body.data.expiredBy).toBe(silence.createdBy);
    // Expiring again changes nothing, and the expired silence is still listed.
    expect((await bed.del<Silence>(`/silences/${silence.id}`)).body.data.endsAt).toBe(
      '2026-03-01T10:30:00.000Z',
    );
    const audit = await bed.get<Silence[]>('/silences?state=expired');
    expect(audit.body.data.map((s) => s.id)).toContain(silence.id);
  });

  it('a silence starting later is pending, and is refused when it ends before it starts', async () => {
    bed.setNow(new Date('2026-03-01T10:00:00Z'));
    const later = await createSilence({
      matchers: [{ label: 'project', values: ['shop'] }],
      startsAt: '2026-03-02T00:00:00Z',
      endsAt: '2026-03-02T01:00:00Z',
      comment: 'night work',
    });
    expect(later.body.data.state).toBe('pending');
    const backwards = await createSilence({
      matchers: [{ label: 'project', values: ['shop'] }],
      startsAt: '2026-03-02T00:00:00Z',
      endsAt: '2026-03-01T23:00:00Z',
      comment: 'oops',
    });
    expect(backwards.status).toBe(400);
    expect(backwards.body.details?.[0]?.path).toBe('endsAt');
  });

  it.each([
    [{ matchers: [{ label: 'monitor', values: ['x'] }], comment: 'no end' }, 'endsAt'],
    [{ matchers: [], duration: '1h', comment: 'no matcher' }, 'matchers'],
    [{ matchers: [{ label: 'team', values: ['x'] }], duration: '1h', comment: 'c' }, 'matchers[0].label'],
    [{ matchers: [{ label: 'monitor', values: ['x'] }], duration: 'two hours', comment: 'c' }, 'duration'],
    [{ matchers: [{ label: 'monitor', values: ['x'] }], duration: '1h' }, 'comment'],
    [{ matchers: [{ label: 'monitor', values: ['x'] }], duration: '400d', comment: 'forever' }, 'duration'],
  ])('bad input %j is a 400 naming %s, and nothing is written', async (body, path) => {
    const before = (await bed.get<Silence[]>('/silences?limit=100')).body.total;
    const answer = await createSilence(body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.details?.map((d) => d.path)).toContain(path);
    expect((await bed.get<Silence[]>('/silences?limit=100')).body.total).toBe(before);
  });

  it('a viewer may list silences but not create one; another organization sees none of them', async () => {
    const body = { matchers: [{ label: 'monitor', values: ['x'] }], duration: '1h', comment: 'c' };
    expect((await bed.post('/silences', body, 'acmeViewer')).status).toBe(403);
    expect((await bed.get('/silences', 'acmeViewer')).status).toBe(200);
    const ours = await createSilence(body);
    expect((await bed.get<Silence[]>('/silences', 'globexAdmin')).body.data).toEqual([]);
    expect((await bed.get(`/silences/${ours.body.data.id}`, 'globexAdmin')).status).toBe(404);
    expect((await bed.del(`/silences/${ours.body.data.id}`, 'globexAdmin')).status).toBe(404);
  });

  it('holds a matching notification, shown as held with the silence id, and sends it once when the silence ends', async () => {
    await putMonitor(bed.hub, 'silenced-1', runFailed, 'payments');
    const ruleId = await bed.ruleIdOf('silenced-1');
    bed.setNow(new Date('2026-03-03T10:00:00Z'));
    const silence = (
      await createSilence({
        matchers: [
          { label: 'monitor', values: ['payments'] },
          { label: 'location', values: ['eu-west'] },
        ],
        duration: '1h',
        comment: 'deploying',
      })
    ).body.data;
    await bed.finish('silenced-1', false, new Date('2026-03-03T10:05:00Z'));
    // The silence matches eu-west only: us-east's failure is sent at once.
    await bed.finish('silenced-1', false, new Date('2026-03-03T10:06:00Z'), 'us-east');
    const events = await bed.eventsOfRule(ruleId);
    expect(events).toHaveLength(2);
    expect(events[0]?.heldBy).toEqual({ kind: 'silence', id: silence.id });
    expect(events[0]?.deliveryStatus).toEqual({
      webhook: { status: 'held', heldBy: { kind: 'silence', id: silence.id } },
    });
    expect(events[1]?.heldBy).toBeNull();
    expect(bed.jobsOf(ruleId)).toBe(1);

    // Still failing after the silence ended: the held notification goes out, this run adds none.
    await bed.finish('silenced-1', false, new Date('2026-03-03T11:05:00Z'));
    const after = await bed.eventsOfRule(ruleId);
    expect(after).toHaveLength(2);
    expect(after[0]?.deliveryStatus.webhook).toMatchObject({ status: 'pending' });
    expect(bed.jobsOf(ruleId)).toBe(2);
    expect(bed.deliveries.jobs.at(-1)?.eventId).toBe(after[0]?.id);
  });
});
