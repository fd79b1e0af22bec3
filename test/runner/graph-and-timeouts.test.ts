import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitorRunner } from '../../hub/src/runner/monitor-runner.js';
import { assertionNode, httpNode, monitorOf, runContext, statusIs } from './monitor-builders.js';
import { startTargetServer, type TargetServer } from './target-server.js';
import { loopbackEgress } from '../harness/egress.js';

describe('running the graph', () => {
  let target: TargetServer;
  const runner = createMonitorRunner({ egress: loopbackEgress });

  beforeAll(async () => {
    target = await startTargetServer();
  });
  afterAll(async () => {
    await runner.close();
    await target.close();
  });

  it('runs independent branches concurrently: both slow requests are in flight at once', async () => {
    const monitor = monitorOf(
      [
        httpNode('gateway', target.url, '/json'),
        httpNode('orders', target.url, '/slow?ms=300&label=orders'),
        httpNode('inventory', target.url, '/slow?ms=300&label=inventory'),
        assertionNode('verify', [statusIs('orders', 200), statusIs('inventory', 200)]),
      ],
      [
        ['gateway', 'orders'],
        ['gateway', 'inventory'],
        ['orders', 'verify'],
        ['inventory', 'verify'],
      ],
    );
    const outcome = await runner.run(monitor, runContext());
    expect(outcome.errors).toEqual([]);
    const orders = target.spans.get('orders');
    const inventory = target.spans.get('inventory');
    // Overlap by the target's own clock: each started before the other ended.
    expect(orders?.start).toBeLessThan(inventory?.end ?? 0);
    expect(inventory?.start).toBeLessThan(orders?.end ?? 0);
  });

  it('runs a node only after all its predecessors finished', async () => {
    const monitor = monitorOf(
      [
        httpNode('first', target.url, '/slow?ms=100&label=first'),
        { id: 'pause', type: 'WAIT', duration_ms: 50 },
        httpNode('second', target.url, '/slow?ms=10&label=second'),
      ],
      [
        ['first', 'pause'],
        ['pause', 'second'],
      ],
    );
    const outcome = await runner.run(monitor, runContext());
    expect(outcome.steps.map((step) => step.status)).toEqual(['passed', 'passed', 'passed']);
    expect(target.spans.get('second')?.start).toBeGreaterThan(target.spans.get('first')?.end ?? Infinity);
  });

  it('skips every dependant of a failed request and keeps running the independent branch', async () => {
    const monitor = monitorOf(
      [
        httpNode('broken', target.url, '/malformed'),
        httpNode('after-broken', target.url, '/json'),
        assertionNode('broken-ok', [statusIs('after-broken', 200)]),
        httpNode('healthy', target.url, '/json'),
        assertionNode('healthy-ok', [statusIs('healthy', 200)]),
      ],
      [
        ['broken', 'after-broken'],
        ['after-broken', 'broken-ok'],
        ['healthy', 'healthy-ok'],
      ],
    );
    const before = target.received.length;
    const outcome = await runner.run(monitor, runContext());
    expect(outcome.steps.map((step) => [step.nodeId, step.status, step.error])).toEqual([
      ['broken', 'failed', expect.stringContaining('not valid JSON')],
      ['after-broken', 'skipped', 'not run: broken failed'],
      ['broken-ok', 'skipped', 'not run: after-broken was skipped'],
      ['healthy', 'passed', undefined],
      ['healthy-ok', 'passed', undefined],
    ]);
    expect(
      target.received
        .slice(before)
        .map((request) => request.url)
        .sort(),
    ).toEqual(['/json', '/malformed']);
    expect(outcome.success).toBe(false);
  });

  it('fails a request that takes longer than its timeout_ms, saying what it was waiting for', async () => {
    const outcome = await runner.run(
      monitorOf([httpNode('slow', target.url, '/hang', { timeout_ms: 150 })]),
      runContext(),
    );
    expect(outcome.errorClasses).toEqual(['timeout']);
    expect(outcome.errors[0]).toMatch(
      /^slow: GET http:\/\/127\.0\.0\.1:\d+\/hang: timed out after 150 ms waiting for the response$/,
    );
  });

  it('ends the whole run at its timeout: the step in flight fails, the pending ones are skipped', async () => {
    const short = createMonitorRunner({ runTimeoutMs: 300, egress: loopbackEgress });
    try {
      const monitor = monitorOf(
        [
          httpNode('quick', target.url, '/json'),
          httpNode('stuck', target.url, '/hang'),
          { id: 'pause', type: 'WAIT', duration_ms: 60_000 },
          assertionNode('verify', [statusIs('stuck', 200)]),
        ],
        [
          ['quick', 'stuck'],
          ['stuck', 'verify'],
        ],
      );
      const outcome = await short.run(monitor, runContext());
      expect(outcome.success).toBe(false);
      expect(outcome.steps.map((step) => step.status)).toEqual(['passed', 'failed', 'failed', 'skipped']);
      expect(outcome.errors).toEqual([
        'the run timed out after 300 ms; 1 step(s) not run',
        expect.stringMatching(
          /^stuck: GET http:\/\/127\.0\.0\.1:\d+\/hang: stopped: the run timed out after 300 ms$/,
        ),
        'pause: stopped: the run timed out after 300 ms',
      ]);
      expect(outcome.errorClasses).toEqual(['timeout', 'timeout', 'timeout']);
      expect(outcome.steps[3]?.error).toBe('not run: stuck failed');
    } finally {
      await short.close();
    }
  });

  it("stops when the caller's signal aborts, as a runner error", async () => {
    const controller = new AbortController();
    const running = runner.run(monitorOf([httpNode('stuck', target.url, '/hang')]), {
      ...runContext(),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('worker shutting down')), 50);
    const outcome = await running;
    expect(outcome.errors[0]).toBe('the run was cancelled: worker shutting down; 0 step(s) not run');
    expect(outcome.errorClasses).toEqual(['runner', 'runner']);
  });

  it('stamps the outcome with the injected clock', async () => {
    const at = new Date('2030-01-02T03:04:05.000Z');
    const clocked = createMonitorRunner({ clock: { now: () => at }, egress: loopbackEgress });
    try {
      const outcome = await clocked.run(monitorOf([httpNode('json', target.url, '/json')]), runContext());
      expect(outcome).toMatchObject({ startedAt: at, completedAt: at, success: true });
      expect(outcome.steps[0]?.startedAt).toBe('2030-01-02T03:04:05.000Z');
    } finally {
      await clocked.close();
    }
  });
});
