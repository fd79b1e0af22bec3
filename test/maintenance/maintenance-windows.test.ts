import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MaintenanceWindow, Silence } from '../../hub/src/maintenance/maintenance.schema.js';
import { ruleEvaluationHook } from '../../hub/src/notifications/rule-evaluation-hook.js';
import { finishRun, putMonitor, recordingDeliveryQueue } from '../notifications/notification-fixtures.js';
import { every, startMaintenanceBed, type MaintenanceBed } from './maintenance-fixtures.js';

const streakOf2 = (extra: Record<string, unknown> = {}) => [
  {
    trigger: { type: 'consecutive_failures', threshold: 2 },
    routing: { channelType: 'webhook' },
    cooldownMinutes: 0,
    ...extra,
  },
];

/** Saturdays 23:00 to 02:00 in Berlin, over the monitors named. */
const weekly = (name: string, monitors: string[], extra: Record<string, unknown> = {}) => ({
  name,
  matchers: [{ label: 'monitor', values: monitors }],
  schedule: { type: 'cron', cron: '0 23 * * 6', timezone: 'Europe/Berlin', durationMinutes: 180 },
  ...extra,
});

describe('maintenance windows', () => {
  let bed: MaintenanceBed;
  const putWindow = (body: { name: string }) =>
    bed.put<MaintenanceWindow>(`/maintenance-windows/${body.name}`, body);

  beforeAll(async () => {
    bed = await startMaintenanceBed();
  });
  afterAll(() => bed.close());

  it('PUT by name creates then replaces a window, which answers its current and next occurrence', async () => {
    bed.setNow(new Date('2026-03-28T23:30:00Z'));
    const created = await putWindow(weekly('saturday-patching', ['checkout']));
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      excludeFromFigures: true,
      current: { start: '2026-03-28T22:00:00.000Z', end: '2026-03-29T01:00:00.000Z' },
      next: { start: '2026-04-04T21:00:00.000Z', end: '2026-04-05T00:00:00.000Z' },
    });
    const replaced = await putWindow(
      weekly('saturday-patching', ['checkout'], { excludeFromFigures: false }),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.id).toBe(created.body.data.id);
    expect(replaced.body.data.excludeFromFigures).toBe(false);
    expect((await bed.get<MaintenanceWindow[]>('/maintenance-windows')).body.data.map((w) => w.name)).toEqual(
      ['saturday-patching'],
    );
    expect((await bed.hub.request('DELETE', '/maintenance-windows/saturday-patching')).status).toBe(204);
    expect((await bed.get('/maintenance-windows/saturday-patching')).status).toBe(404);
  });

  it.each([
    [
      { schedule: { type: 'cron', cron: '0 99 * * *', timezone: 'Europe/Berlin', durationMinutes: 60 } },
      'schedule.cron',
    ],
    [
      { schedule: { type: 'cron', cron: '0 1 * * *', timezone: 'Mars/Olympus', durationMinutes: 60 } },
      'schedule.timezone',
    ],
    [
      { schedule: { type: 'once', startsAt: '2026-05-01T10:00:00Z', endsAt: '2026-05-01T09:00:00Z' } },
      'schedule.endsAt',
    ],
    [{ matchers: [{ label: 'monitor', operator: '=~', values: ['.*'] }] }, 'matchers[0].operator'],
  ])('bad window %j is a 400 naming %s, and nothing is written', async (change, path) => {
    const answer = await putWindow({ ...weekly('bad', ['checkout']), ...change });
    expect(answer.status).toBe(400);
    expect(answer.body.details?.map((d) => d.path)).toContain(path);
    expect((await bed.get('/maintenance-windows/bad')).status).toBe(404);
  });

  it('an RRULE window answers its current and next occurrence in its zone, across the DST change', async () => {
    bed.setNow(new Date('2026-03-28T23:30:00Z'));
    const rule = {
      type: 'rrule',
      rrule: 'FREQ=WEEKLY;BYDAY=SA;BYHOUR=23;BYMINUTE=0',
      startsAt: '2026-01-01T00:00:00+01:00',
      timezone: 'Europe/Berlin',
      durationMinutes: 180,
    };
    const created = await putWindow(weekly('saturday-rule', ['checkout'], { schedule: rule }));
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      schedule: rule,
      current: { start: '2026-03-28T22:00:00.000Z', end: '2026-03-29T01:00:00.000Z' },
      next: { start: '2026-04-04T21:00:00.000Z', end: '2026-04-05T00:00:00.000Z' },
    });
    expect((await bed.hub.request('DELETE', '/maintenance-windows/saturday-rule')).status).toBe(204);
  });

  const rrule = (rule: string, extra: Record<string, unknown> = {}) => ({
    schedule: {
      type: 'rrule',
      rrule: rule,
      startsAt: '2026-01-01T00:00:00Z',
      timezone: 'UTC',
      durationMinutes: 60,
      ...extra,
    },
  });
  it.each([
    [rrule('FREQ=MINUTELY;INTERVAL=1'), 'schedule.rrule', /FREQ must be DAILY/],
    [rrule('FREQ=SECONDLY;INTERVAL=1'), 'schedule.rrule', /not SECONDLY/],
    [rrule('FREQ=DAILY;COUNT=100000'), 'schedule.rrule', /COUNT is not taken/],
    [rrule('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30'), 'schedule.rrule', /starts no window/],
    [rrule('FREQ=DAILY;BYHOUR=1', { cron: '0 1 * * *' }), 'schedule.cron', /unknown field/],
    [rrule('FREQ=DAILY;BYHOUR=1', { startsAt: undefined }), 'schedule.startsAt', /./],
    [rrule('FREQ=DAILY', { activeUntil: '2025-01-01T00:00:00Z' }), 'schedule.activeUntil', /after startsAt/],
  ])('bad RRULE window %j is a 400 naming %s, and nothing is written', async (change, path, message) => {
    const answer = await putWindow({ ...weekly('bad-rule', ['checkout']), ...change });
    expect([answer.status, answer.body.code]).toEqual([400, 'validation_failed']);
    const detail = answer.body.details?.find((d) => d.path === path);
    expect(detail?.message).toMatch(message);
    expect((await bed.get('/maintenance-windows/bad-rule')).status).toBe(404);
  });

  it('a failure that starts inside a window and goes on after it notifies once, at the end', async () => {
    await putMonitor(bed.hub, 'mw-through', streakOf2(), 'mw-through');
    const ruleId = await bed.ruleIdOf('mw-through');
    await putWindow(weekly('through', ['mw-through']));
    // Failing from 00:00Z (01:00 CET) every 20 minutes, past the window's end at 01:00Z (03:00 CEST).
    for (const at of every(20, '2026-03-29T00:00:00Z', 3)) await bed.finish('mw-through', false, at);
    const held = await bed.eventsOfRule(ruleId);
    expect(held).toHaveLength(1);
    expect(held[0]?.heldBy).toMatchObject({ kind: 'maintenance' });
    expect(bed.jobsOf(ruleId)).toBe(0);
    for (const at of every(20, '2026-03-29T01:00:00Z', 3)) await bed.finish('mw-through', false, at);
    const events = await bed.eventsOfRule(ruleId);
    expect(events).toHaveLength(1);
    expect(events[0]?.deliveryStatus.webhook).toMatchObject({
      status: 'pending',
      releasedAt: '2026-03-29T01:00:00.000Z',
    });
    expect(bed.jobsOf(ruleId)).toBe(1);
  });

  it('a failure that clears inside the window is dropped, not sent', async () => {
    await putMonitor(bed.hub, 'mw-cleared', streakOf2(), 'mw-cleared');
    const ruleId = await bed.ruleIdOf('mw-cleared');
    await putWindow(weekly('cleared', ['mw-cleared']));
    await bed.finish('mw-cleared', false, new Date('2026-04-04T21:10:00Z'));
    await bed.finish('mw-cleared', false, new Date('2026-04-04T21:20:00Z'));
    await bed.finish('mw-cleared', true, new Date('2026-04-04T21:30:00Z'));
    await bed.finish('mw-cleared', true, new Date('2026-04-05T00:10:00Z'));
    const [event] = await bed.eventsOfRule(ruleId);
    expect(event?.deliveryStatus.webhook).toMatchObject({
      status: 'dropped',
      reason: 'no longer true when the silence or maintenance window ended',
    });
    expect(bed.jobsOf(ruleId)).toBe(0);
  });

  it('heldNotifications: drop drops a held failure even when it still holds', async () => {
    await putMonitor(bed.hub, 'mw-drop', streakOf2({ heldNotifications: 'drop' }), 'mw-drop');
    const ruleId = await bed.ruleIdOf('mw-drop');
    await putWindow(weekly('drop', ['mw-drop']));
    for (const at of every(30, '2026-04-04T23:00:00Z', 4)) await bed.finish('mw-drop', false, at);
    const [event] = await bed.eventsOfRule(ruleId);
    expect(event?.deliveryStatus.webhook).toMatchObject({ status: 'dropped' });
    expect(bed.jobsOf(ruleId)).toBe(0);
  });

  it('a silence overlapping the end of a window keeps holding until it ends too', async () => {
    await putMonitor(bed.hub, 'mw-overlap', streakOf2(), 'mw-overlap');
    const ruleId = await bed.ruleIdOf('mw-overlap');
    await putWindow(weekly('overlap', ['mw-overlap']));
    bed.setNow(new Date('2026-04-04T21:00:00Z'));
    const silence = await bed.post<Silence>('/silences', {
      matchers: [{ label: 'monitor', values: ['mw-overlap'] }],
      startsAt: '2026-04-04T23:00:00Z',
      endsAt: '2026-04-05T01:00:00Z',
      comment: 'the migration runs late',
    });
    expect(silence.status).toBe(201);
    // 21:10Z and 21:40Z in the window; 00:10Z and 00:40Z after it but in the silence; 01:10Z after both.
    for (const at of every(30, '2026-04-04T21:10:00Z', 2)) await bed.finish('mw-overlap', false, at);
    for (const at of every(30, '2026-04-05T00:10:00Z', 2)) await bed.finish('mw-overlap', false, at);
    expect(bed.jobsOf(ruleId)).toBe(0);
    await bed.finish('mw-overlap', false, new Date('2026-04-05T01:10:00Z'));
    expect(bed.jobsOf(ruleId)).toBe(1);
    expect(await bed.eventsOfRule(ruleId)).toHaveLength(1);
  });

  it('replicas finishing the first runs after a window at once send the held notification exactly once', async () => {
    await putMonitor(bed.hub, 'mw-race', streakOf2(), 'mw-race');
    const ruleId = await bed.ruleIdOf('mw-race');
    await putWindow(weekly('race', ['mw-race']));
    for (const at of every(30, '2026-04-04T21:10:00Z', 2)) await bed.finish('mw-race', false, at);
    // Two hooks over two queues stand for two worker processes; the database is what they share.
    const queues = [recordingDeliveryQueue(), recordingDeliveryQueue(), recordingDeliveryQueue()];
    const after = new Date('2026-04-05T00:10:00Z');
    await Promise.all(
      queues.map((queue) =>
        finishRun(bed.hub.db, [ruleEvaluationHook(queue)], {
          monitorId: 'mw-race',
          success: false,
          at: after,
        }),
      ),
    );
    expect(queues.flatMap((queue) => queue.jobs).filter((job) => job.ruleId === ruleId)).toHaveLength(1);
    expect(await bed.eventsOfRule(ruleId)).toHaveLength(1);
  });
});
