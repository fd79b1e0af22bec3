// The Monitor status a reconcile pass arrives at, computed in one pure function from the resource (its previous
// status, generation, uid and annotations), what the pass observed of the hub, and the time (ADR 0043). Nothing
// here calls the hub or Kubernetes: monitor-sync.ts observes, this decides, reconcile-monitor.ts writes. The pieces
// it composes are pure too: `Synced` and `HubReachable` here, the figures and `Healthy` (monitor-health.ts), and
// the kstatus conditions `Ready`, `Stalled`, `Reconciling` with `observedGeneration` (readiness.ts).
import { setCondition, toKubeTime } from './monitor-conditions.js';
import { withHealth, type LastRunDetails, type MonitorHealthFigures } from './monitor-health.js';
import {
  SYNC_NOW_ANNOTATION,
  type MonitorResource,
  type MonitorResourceStatus,
} from './monitor-resource-status.js';
import { withReadiness } from './readiness.js';

/** What became of `meerkat.dev/run-now`: the run started, or the hub's refusal. */
export type RunNowOutcome = { token: string; runId: string } | { token: string; message: string };

/** What one pass learnt of the hub. */
export type HubObservation =
  | {
      kind: 'synced';
      /** The spec was put in this pass (else the hub already held it as it is). */
      put: boolean;
      consoleUrl: string;
      runNow?: RunNowOutcome | undefined;
      /** The health figures; undefined when they could not be read (the last ones stay). */
      health?: { figures: MonitorHealthFigures; details: LastRunDetails } | undefined;
    }
  | { kind: 'refused'; reason: 'ProjectNotAllowed' | 'HubRejectedSpec'; message: string }
  | {
      kind: 'unreachable';
      /** Set once the outage is past its grace period: only then do Monitors say so. */
      outage: { since: Date; error: string } | undefined;
    }
  | { kind: 'deletionBlocked'; message: string };

export interface StatusInputs {
  resource: Pick<MonitorResource, 'metadata' | 'status'>;
  observation: HubObservation;
  now: Date;
}

export function desiredStatus({ resource, observation, now }: StatusInputs): MonitorResourceStatus {
  const previous = resource.status ?? {};
  const { generation, uid } = resource.metadata;
  const synced = (status: 'True' | 'False', reason: string, message: string, stamped = true) => ({
    ...previous,
    conditions: setCondition(
      previous.conditions,
      { type: 'Synced', status, reason, message, ...(stamped ? { observedGeneration: generation } : {}) },
      now,
    ),
  });
  switch (observation.kind) {
    case 'refused':
      return withReadiness(synced('False', observation.reason, observation.message), generation, now);
    case 'deletionBlocked':
      // Not a verdict on this generation: Ready stays Reconciling while the deletion waits.
      return withReadiness(synced('False', 'DeletionBlocked', observation.message, false), generation, now);
    case 'unreachable': {
      // The spec last accepted is still in the hub: nothing changes until the outage is past its grace period.
      if (!observation.outage) return previous;
      const { since, error } = observation.outage;
      const condition = {
        type: 'HubReachable',
        status: 'False' as const,
        reason: 'HubUnreachable',
        message: `the hub has not answered since ${toKubeTime(since)}: ${error}; retried when it does`,
      };
      const status = { ...previous, conditions: setCondition(previous.conditions, condition, now) };
      return withReadiness(status, generation, now);
    }
    case 'synced': {
      const accepted = synced('True', 'Synced', 'the spec is in the hub');
      let status: MonitorResourceStatus = {
        ...accepted,
        monitorId: uid,
        updatedAt: observation.put || previous.updatedAt === undefined ? toKubeTime(now) : previous.updatedAt,
        ...syncNowHandled(resource),
        ...(observation.runNow ? { runNow: observation.runNow } : {}),
        consoleUrl: observation.consoleUrl,
        conditions: setCondition(
          accepted.conditions,
          { type: 'HubReachable', status: 'True', reason: 'HubAnswered', message: 'the hub answers' },
          now,
        ),
      };
      if (observation.health) {
        const { figures, details } = observation.health;
        status = withHealth(status, figures, details, generation, now);
      }
      return withReadiness(status, generation, now);
    }
  }
}

/** The `meerkat.dev/sync-now` value this pass handles (the annotation's, else the one handled before). */
export function syncNowHandled(resource: Pick<MonitorResource, 'metadata' | 'status'>): {
  syncNowToken?: string;
} {
  const token = resource.metadata.annotations?.[SYNC_NOW_ANNOTATION] ?? resource.status?.syncNowToken;
  return token === undefined ? {} : { syncNowToken: token };
}
