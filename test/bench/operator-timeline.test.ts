import { describe, expect, it } from 'vitest';
import {
  coresBetween,
  lastSyncedSeconds,
  queueDepthOf,
  syncTimeline,
} from '../../bench/operator-timeline.js';
import type { MonitorResource } from '../../operator/src/monitor-resource-status.js';

const started = Date.parse('2026-11-30T12:00:00.400Z');
const monitor = (created: string, synced?: string, generation = 1, observed = 1) =>
  ({
    metadata: { name: 'm', namespace: 'n', uid: 'u', generation, creationTimestamp: created },
    status:
      synced === undefined
        ? undefined
        : {
            observedGeneration: observed,
            conditions: [{ type: 'Synced', status: 'True', reason: 'Synced', lastTransitionTime: synced }],
          },
  }) as unknown as MonitorResource;

describe('the sync timeline', () => {
  const items = [
    monitor('2026-11-30T12:00:00Z', '2026-11-30T12:00:02Z'),
    monitor('2026-11-30T12:00:04Z', '2026-11-30T12:00:07Z'),
    monitor('2026-11-30T12:00:06Z', '2026-11-30T12:00:12Z'),
  ];

  it('counts the Monitors created and Synced by the end of each step since the first creation', () => {
    expect(syncTimeline(items, started)).toEqual([
      { at: 5, created: 2, synced: 1 },
      { at: 10, created: 3, synced: 2 },
      { at: 15, created: 3, synced: 3 },
    ]);
  });

  it('tells when the last became Synced, to the second its condition names', () => {
    expect(lastSyncedSeconds(items, started)).toBeCloseTo(12.6);
  });

  it('counts no Monitor Synced at an older generation, and no end while one is not Synced', () => {
    const stale = [...items, monitor('2026-11-30T12:00:06Z', '2026-11-30T12:00:08Z', 2, 1)];
    expect(syncTimeline(stale, started).at(-1)).toEqual({ at: 15, created: 4, synced: 3 });
    expect(lastSyncedSeconds(stale, started)).toBeUndefined();
  });
});

describe('the cores of each step', () => {
  it('divides each process tree’s CPU in a step by the step’s seconds', () => {
    const samples = [
      { at: 0, cpu: { hub: 1, operator: 0 } },
      { at: 5, cpu: { hub: 6, operator: 1 } },
    ];
    expect(coresBetween(samples)).toEqual([{ at: 5, cores: { hub: 1, operator: 0.2 } }]);
  });
});

describe('the operator’s queue depth', () => {
  it('reads the gauge from the operator’s metrics, NaN when absent', () => {
    const text =
      '# TYPE meerkat_operator_queue_depth gauge\nmeerkat_operator_queue_depth{process="operator"} 42\n';
    expect(queueDepthOf(text)).toBe(42);
    expect(queueDepthOf('meerkat_operator_queue_depth 7\n')).toBe(7);
    expect(queueDepthOf('')).toBeNaN();
  });
});
