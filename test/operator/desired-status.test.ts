// desiredStatus(): the whole Monitor status from the resource, what a pass observed of the hub, and the time; no
// hub, no Kubernetes, so each case states its inputs and the status it must come to.
import { describe, expect, it } from 'vitest';
import { desiredStatus, type HubObservation } from '../../operator/src/desired-status.js';
import type { MonitorHealthFigures } from '../../operator/src/monitor-health.js';
import {
  SYNC_NOW_ANNOTATION,
  type MonitorResource,
  type MonitorResourceStatus,
} from '../../operator/src/monitor-resource-status.js';

const uid = '6f1c1f52-8d7e-4c1a-9a51-0d6f3b1a2c3d';
const now = new Date('2025-01-01T12:00:00.500Z');
const earlier = '2025-01-01T10:00:00Z';

function resource(generation: number, status?: MonitorResourceStatus): MonitorResource {
  return {
    apiVersion: 'meerkat.dev/v1alpha1',
    kind: 'Monitor',
    metadata: { namespace: 'shop', name: 'checkout', uid, generation, resourceVersion: '7' },
    spec: { version: '1.0', frequency: { every: 5, unit: 'MINUTE' }, nodes: [], edges: [] },
    ...(status ? { status } : {}),
  };
}

const synced = (put: boolean, extra: Partial<Extract<HubObservation, { kind: 'synced' }>> = {}) =>
  ({ kind: 'synced', put, consoleUrl: `https://meerkat.example/ui/monitors/${uid}`, ...extra }) as const;

const conditionsOf = (status: MonitorResourceStatus) =>
  Object.fromEntries(
    (status.conditions ?? []).map((c) => [c.type, [c.status, c.reason, c.observedGeneration]]),
  );

describe('desiredStatus', () => {
  it('a first accepted spec: Synced, HubReachable and Ready True, the generation observed, updatedAt now', () => {
    const status = desiredStatus({ resource: resource(3), observation: synced(true), now });
    expect(status).toMatchObject({
      observedGeneration: 3,
      monitorId: uid,
      updatedAt: '2025-01-01T12:00:00Z',
      consoleUrl: `https://meerkat.example/ui/monitors/${uid}`,
    });
    expect(conditionsOf(status)).toEqual({
      Synced: ['True', 'Synced', 3],
      HubReachable: ['True', 'HubAnswered', undefined],
      Ready: ['True', 'Synced', 3],
    });
    expect(status.conditions?.every((c) => c.lastTransitionTime === '2025-01-01T12:00:00Z')).toBe(true);
  });

  it('keeps updatedAt and every lastTransitionTime when the hub already held the spec', () => {
    const first = desiredStatus({ resource: resource(3), observation: synced(true), now: new Date(earlier) });
    const again = desiredStatus({ resource: resource(3, first), observation: synced(false), now });
    expect(again).toEqual(first);
  });

  it('records the sync-now token handled and the run started for run-now', () => {
    const annotated = resource(1);
    annotated.metadata.annotations = { [SYNC_NOW_ANNOTATION]: 'token-1' };
    const status = desiredStatus({
      resource: annotated,
      observation: synced(true, { runNow: { token: 'run-1', runId: 'run_9' } }),
      now,
    });
    expect(status).toMatchObject({ syncNowToken: 'token-1', runNow: { token: 'run-1', runId: 'run_9' } });
  });

  it('a refused spec is Stalled (kstatus Failed) with the refusal, and the generation observed', () => {
    const previous = desiredStatus({
      resource: resource(1),
      observation: synced(true),
      now: new Date(earlier),
    });
    const observation = {
      kind: 'refused',
      reason: 'HubRejectedSpec',
      message: 'frequency: too often',
    } as const;
    const status = desiredStatus({ resource: resource(2, previous), observation, now });
    expect(status.observedGeneration).toBe(2);
    expect(conditionsOf(status)).toMatchObject({
      Synced: ['False', 'HubRejectedSpec', 2],
      Ready: ['False', 'HubRejectedSpec', 2],
      Stalled: ['True', 'HubRejectedSpec', 2],
    });
    expect(status.conditions?.find((c) => c.type === 'Stalled')?.message).toBe('frequency: too often');
    // What the hub holds is still described.
    expect(status.monitorId).toBe(uid);
  });

  it('an outage within its grace period changes nothing', () => {
    const previous = desiredStatus({
      resource: resource(1),
      observation: synced(true),
      now: new Date(earlier),
    });
    const status = desiredStatus({
      resource: resource(2, previous),
      observation: { kind: 'unreachable', outage: undefined },
      now,
    });
    expect(status).toBe(previous);
  });

  it('an outage past its grace period: HubReachable False, a new generation Reconciling, not observed', () => {
    const previous = desiredStatus({
      resource: resource(1),
      observation: synced(true),
      now: new Date(earlier),
    });
    const outage = { since: new Date(earlier), error: 'connect ECONNREFUSED' };
    const status = desiredStatus({
      resource: resource(2, previous),
      observation: { kind: 'unreachable', outage },
      now,
    });
    expect(status.observedGeneration).toBe(1);
    expect(conditionsOf(status)).toMatchObject({
      HubReachable: ['False', 'HubUnreachable', undefined],
      Ready: ['False', 'HubUnreachable', 2],
      Reconciling: ['True', 'HubUnreachable', 2],
    });
    expect(status.conditions?.find((c) => c.type === 'HubReachable')?.message).toBe(
      `the hub has not answered since ${earlier}: connect ECONNREFUSED; retried when it does`,
    );
  });

  it('a blocked deletion is no verdict: Reconciling, and the last verdict stays observed', () => {
    const previous = desiredStatus({
      resource: resource(1),
      observation: synced(true),
      now: new Date(earlier),
    });
    const status = desiredStatus({
      resource: resource(1, previous),
      observation: { kind: 'deletionBlocked', message: 'the hub answered 500' },
      now,
    });
    expect(conditionsOf(status)).toMatchObject({
      Synced: ['False', 'DeletionBlocked', undefined],
      Reconciling: ['True', 'DeletionBlocked', 1],
      Ready: ['False', 'DeletionBlocked', 1],
    });
    expect(conditionsOf(status)).not.toHaveProperty('Stalled');
  });

  it('carries the health figures and the Healthy condition when the pass read them', () => {
    const figures: MonitorHealthFigures = {
      status: 'failing',
      runs: { total: 4, successRate: 50 },
      lastRun: { id: 'run_4', startedAt: '2025-01-01T11:59:00.000Z', durationMs: 1000, success: false },
    };
    const details = { error: 'expected 200, got 503', url: 'https://meerkat.example/ui/runs/run_4' };
    const status = desiredStatus({
      resource: resource(1),
      observation: synced(false, { health: { figures, details } }),
      now,
    });
    expect(status).toMatchObject({
      health: 'failing',
      successRate: '50%',
      lastRun: '2025-01-01T11:59:01Z',
      lastRunId: 'run_4',
      lastRunResult: 'Failed',
      lastRunError: 'expected 200, got 503',
      lastRunUrl: 'https://meerkat.example/ui/runs/run_4',
    });
    expect(conditionsOf(status).Healthy).toEqual(['False', 'Failing', 1]);
    // Unread figures leave the last ones in place.
    const unread = desiredStatus({ resource: resource(1, status), observation: synced(false), now });
    expect(unread.lastRunError).toBe('expected 200, got 503');
  });

  it('is pure: the resource is not changed, and the same inputs give the same status', () => {
    const input = resource(2, { observedGeneration: 1, conditions: [] });
    const copy = structuredClone(input);
    const observation = { kind: 'refused', reason: 'ProjectNotAllowed', message: 'no' } as const;
    expect(desiredStatus({ resource: input, observation, now })).toEqual(
      desiredStatus({ resource: input, observation, now }),
    );
    expect(input).toEqual(copy);
  });
});
