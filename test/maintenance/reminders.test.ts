import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putMonitor } from '../notifications/notification-fixtures.js';
import { every, startMaintenanceBed, type MaintenanceBed } from './maintenance-fixtures.js';

describe('reminders and resolution', () => {
  let bed: MaintenanceBed;

  beforeAll(async () => {
    bed = await startMaintenanceBed();
  });
  afterAll(() => bed.close());

  it('repeatMinutes reminds while the streak holds, and sendResolved says when it clears', async () => {
    await putMonitor(bed.hub, 'remind-1', [
      {
        trigger: { type: 'consecutive_failures', threshold: 2 },
        routing: { channelType: 'webhook' },
        cooldownMinutes: 0,
        repeatMinutes: 30,
        sendResolved: true,
      },
    ]);
    const ruleId = await bed.ruleIdOf('remind-1');
    // Failing every 10 minutes for an hour: the streak at 10:10, reminders at 10:40 and 11:10.
    for (const at of every(10, '2026-06-01T10:00:00Z', 8)) await bed.finish('remind-1', false, at);
    await bed.finish('remind-1', true, new Date('2026-06-01T11:20:00Z'));
    await bed.finish('remind-1', true, new Date('2026-06-01T11:30:00Z'));
    const events = await bed.eventsOfRule(ruleId);
    expect(
      events.map((e) => [e.createdAt, Object.values(e.channelsNotified)[0]?.kind, e.triggerReason]),
    ).toEqual([
      ['2026-06-01T10:10:00.000Z', 'failure', '2 consecutive failures in eu-west (threshold 2)'],
      [
        '2026-06-01T10:40:00.000Z',
        'reminder',
        'still failing: 2 consecutive failures in eu-west (threshold 2)',
      ],
      [
        '2026-06-01T11:10:00.000Z',
        'reminder',
        'still failing: 2 consecutive failures in eu-west (threshold 2)',
      ],
      ['2026-06-01T11:20:00.000Z', 'recovery', 'resolved: consecutive failures no longer holds'],
    ]);
    expect(bed.jobsOf(ruleId)).toBe(4);
  });

  it('without repeatMinutes and sendResolved a rule notifies once per streak, as before', async () => {
    await putMonitor(bed.hub, 'remind-2', [
      {
        trigger: { type: 'consecutive_failures', threshold: 2 },
        routing: { channelType: 'webhook' },
        cooldownMinutes: 0,
      },
    ]);
    const ruleId = await bed.ruleIdOf('remind-2');
    for (const at of every(10, '2026-06-01T10:00:00Z', 8)) await bed.finish('remind-2', false, at);
    await bed.finish('remind-2', true, new Date('2026-06-01T11:20:00Z'));
    expect(await bed.eventsOfRule(ruleId)).toHaveLength(1);
  });
});
