import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleEvaluationHook } from '../../hub/src/notifications/rule-evaluation-hook.js';
import { systemFailureError } from '../../hub/src/runs/system-failure.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  createWebhookIntegration,
  eventsOf,
  finishRun,
  later,
  putMonitor,
  recordingDeliveryQueue,
  rulesOf,
} from './notification-fixtures.js';

describe('trigger evaluation after each finished run', () => {
  let hub: TestHub;
  const deliveries = recordingDeliveryQueue();
  const hooks = [ruleEvaluationHook(deliveries)];
  const finish = (
    monitorId: string,
    success: boolean,
    extra: { location?: string; durationMs?: number; minutes?: number; errors?: string[] } = {},
  ) => finishRun(hub.db, hooks, { monitorId, success, at: later(extra.minutes ?? 1), ...extra });
  const ruleIdOf = async (monitorId: string) => ((await rulesOf(hub, monitorId))[0] as { id: string }).id;

  beforeAll(async () => {
    hub = await startTestHub({ redisUrl: null });
    await createWebhookIntegration(hub, 'hooks', 'http://127.0.0.1:9/unused');
  });
  afterAll(() => hub.close());

  it('run_failed fires per failed run, not again inside the cooldown, and again after it', async () => {
    await putMonitor(hub, 'failed-1', [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' }, cooldownMinutes: 10 },
    ]);
    const ruleId = await ruleIdOf('failed-1');
    await finish('failed-1', true);
    expect(await eventsOf(hub, ruleId)).toHaveLength(0);
    await finish('failed-1', false);
    await finish('failed-1', false, { minutes: 5 });
    const events = await eventsOf(hub, ruleId);
    expect(events).toHaveLength(1);
    expect(events[0]?.triggerReason).toBe(
      'run failed in eu-west: assertion failed: status expected 200, actual 503',
    );
    expect(events[0]?.deliveryStatus).toEqual({ webhook: { status: 'pending' } });
    await finish('failed-1', false, { minutes: 6 });
    expect(await eventsOf(hub, ruleId)).toHaveLength(2);
    expect(deliveries.jobs.filter((job) => job.ruleId === ruleId)).toHaveLength(2);
  });

  it('ignores a run failed by the system itself (the reaper, a refused result)', async () => {
    await putMonitor(hub, 'reaped-1', [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' } },
      { trigger: { type: 'consecutive_failures', threshold: 1 }, routing: { channelType: 'webhook' } },
    ]);
    const ruleIds = (await rulesOf(hub, 'reaped-1')).map((rule) => (rule as { id: string }).id);
    await finish('reaped-1', false, {
      errors: [systemFailureError('still running after its timeout (the worker stopped or lost it)')],
    });
    for (const ruleId of ruleIds) expect(await eventsOf(hub, ruleId)).toHaveLength(0);
    // The same rules fire for a failure of the target.
    await finish('reaped-1', false, { minutes: 2 });
    for (const ruleId of ruleIds) expect(await eventsOf(hub, ruleId)).toHaveLength(1);
  });

  it('run_recovered fires on the first success after a failure in the same location, inside the cooldown too', async () => {
    await putMonitor(hub, 'recover-1', [
      { trigger: { type: 'run_recovered' }, routing: { channelType: 'webhook' } },
    ]);
    const ruleId = await ruleIdOf('recover-1');
    await finish('recover-1', true);
    await finish('recover-1', false);
    await finish('recover-1', true, { location: 'us-east' });
    expect(await eventsOf(hub, ruleId)).toHaveLength(0);
    await finish('recover-1', true);
    await finish('recover-1', true);
    await finish('recover-1', false);
    await finish('recover-1', true);
    const events = await eventsOf(hub, ruleId);
    expect(events).toHaveLength(2);
    expect(events[0]?.triggerReason).toBe('recovered in eu-west: the run passed after a failure');
  });

  it('consecutive_failures fires once when the streak reaches the threshold, and again for a new streak', async () => {
    await putMonitor(hub, 'streak-1', [
      {
        trigger: { type: 'consecutive_failures', threshold: 3 },
        routing: { channelType: 'webhook' },
        cooldownMinutes: 0,
      },
    ]);
    const ruleId = await ruleIdOf('streak-1');
    await finish('streak-1', false);
    await finish('streak-1', false);
    await finish('streak-1', false, { location: 'us-east' });
    expect(await eventsOf(hub, ruleId)).toHaveLength(0);
    await finish('streak-1', false);
    await finish('streak-1', false);
    await finish('streak-1', false);
    const events = await eventsOf(hub, ruleId);
    expect(events.map((e) => e.triggerReason)).toEqual(['3 consecutive failures in eu-west (threshold 3)']);
    await finish('streak-1', true);
    for (let i = 0; i < 3; i += 1) await finish('streak-1', false);
    expect(await eventsOf(hub, ruleId)).toHaveLength(2);
  });

  it('consecutive_failures is held back by the cooldown', async () => {
    await putMonitor(hub, 'streak-2', [
      {
        trigger: { type: 'consecutive_failures', threshold: 1 },
        routing: { channelType: 'webhook' },
        cooldownMinutes: 60,
      },
    ]);
    const ruleId = await ruleIdOf('streak-2');
    await finish('streak-2', false);
    await finish('streak-2', true);
    await finish('streak-2', false);
    expect(await eventsOf(hub, ruleId)).toHaveLength(1);
  });

  it('success_rate_below fires when the rate falls under the threshold, once until it recovers', async () => {
    await putMonitor(hub, 'rate-1', [
      {
        trigger: { type: 'success_rate_below', threshold: 60, window_minutes: 30 },
        routing: { channelType: 'webhook' },
        cooldownMinutes: 0,
      },
    ]);
    const ruleId = await ruleIdOf('rate-1');
    await finish('rate-1', true);
    await finish('rate-1', false); // 50% < 60%: fires
    await finish('rate-1', false); // still below: edge already taken
    expect((await eventsOf(hub, ruleId)).map((e) => e.triggerReason)).toEqual([
      'success rate 50% over the last 30 minutes (threshold 60%, 2 runs)',
    ]);
    for (let i = 0; i < 6; i += 1) await finish('rate-1', true); // 7/9 = 77.8%: clears
    await finish('rate-1', false, { minutes: 40 }); // only this run in the window: 0%
    expect(await eventsOf(hub, ruleId)).toHaveLength(2);
  });

  it('latency_above fires when the percentile passes the threshold, once until it falls back', async () => {
    await putMonitor(hub, 'latency-1', [
      {
        trigger: { type: 'latency_above', threshold_ms: 500, percentile: 'p50', window_minutes: 10 },
        routing: { channelType: 'webhook' },
        cooldownMinutes: 0,
      },
    ]);
    const ruleId = await ruleIdOf('latency-1');
    await finish('latency-1', true, { durationMs: 100 });
    await finish('latency-1', true, { durationMs: 900 });
    expect(await eventsOf(hub, ruleId)).toHaveLength(0);
    await finish('latency-1', true, { durationMs: 800 });
    await finish('latency-1', true, { durationMs: 950 });
    const events = await eventsOf(hub, ruleId);
    expect(events.map((e) => e.triggerReason)).toEqual([
      'p50 latency 800 ms over the last 10 minutes (threshold 500 ms)',
    ]);
  });

  it('a disabled rule never fires', async () => {
    await putMonitor(hub, 'off-1', [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' } },
    ]);
    const ruleId = await ruleIdOf('off-1');
    await hub.db.updateTable('notification_rules').set({ enabled: false }).where('id', '=', ruleId).execute();
    await finish('off-1', false);
    expect(await eventsOf(hub, ruleId)).toHaveLength(0);
  });

  it('two workers finishing failed runs of one monitor at once record one event', async () => {
    await putMonitor(hub, 'race-1', [
      { trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' } },
    ]);
    const ruleId = await ruleIdOf('race-1');
    const at = later();
    // Two hooks over two queues stand for two worker processes; the database is what they share.
    const otherWorker = [ruleEvaluationHook(recordingDeliveryQueue())];
    await Promise.all([
      finishRun(hub.db, hooks, { monitorId: 'race-1', success: false, at }),
      finishRun(hub.db, otherWorker, { monitorId: 'race-1', success: false, at, location: 'us-east' }),
      finishRun(hub.db, otherWorker, { monitorId: 'race-1', success: false, at }),
    ]);
    expect(await eventsOf(hub, ruleId)).toHaveLength(1);
  });
});
