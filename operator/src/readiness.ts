// The conditions GitOps tools read, as kstatus defines them (ADR 0039): `Ready`, and beside it `Stalled` (a spec
// the hub or the operator refused: kstatus `Failed`) or `Reconciling` (not settled yet: kstatus `InProgress`),
// derived from the `Synced` condition and the resource's generation; `status.observedGeneration` is the generation
// that reached a verdict, accepted or refused. `kubectl wait --for=condition=Ready`, Flux and Argo CD read these.
import { setCondition, withoutConditions } from './monitor-conditions.js';
import type { Condition } from './monitor-resource-status.js';

/** `Synced` reasons that no retry clears, only a change of the spec (or of the hub's configuration). */
const REFUSAL_REASONS = new Set(['HubRejectedSpec', 'ProjectNotAllowed', 'InvalidSpec', 'HubRefused']);

interface ReadinessFields {
  observedGeneration?: number | undefined;
  conditions?: Condition[] | undefined;
}

export function withReadiness<Status extends ReadinessFields>(
  status: Status,
  generation: number | undefined,
  now: Date,
): Status {
  const conditions = status.conditions ?? [];
  const synced = conditions.find((condition) => condition.type === 'Synced');
  const stamp = generation === undefined ? {} : { observedGeneration: generation };
  const verdict = synced !== undefined && synced.observedGeneration === generation;
  if (verdict && synced.status === 'True') {
    const ready = { type: 'Ready', status: 'True' as const, reason: 'Synced', message: synced.message };
    return {
      ...status,
      ...stamp,
      conditions: withoutConditions(
        setCondition(conditions, { ...ready, ...stamp }, now),
        'Reconciling',
        'Stalled',
      ),
    };
  }
  if (verdict && synced.status === 'False' && REFUSAL_REASONS.has(synced.reason)) {
    const why = { reason: synced.reason, message: synced.message, ...stamp };
    let next = setCondition(conditions, { type: 'Ready', status: 'False', ...why }, now);
    next = setCondition(next, { type: 'Stalled', status: 'True', ...why }, now);
    return { ...status, ...stamp, conditions: withoutConditions(next, 'Reconciling') };
  }
  // No verdict on this generation yet (the hub has not answered), or a deletion under way: status.observedGeneration
  // stays at the last verdict, so kstatus and `kubectl wait` both see the generation as not observed.
  const why = pendingReason(conditions, synced, generation);
  let next = setCondition(conditions, { type: 'Ready', status: 'False', ...why, ...stamp }, now);
  next = setCondition(next, { type: 'Reconciling', status: 'True', ...why, ...stamp }, now);
  return { ...status, conditions: withoutConditions(next, 'Stalled') };
}

function pendingReason(
  conditions: readonly Condition[],
  synced: Condition | undefined,
  generation: number | undefined,
): { reason: string; message: string } {
  if (synced?.status === 'False') return { reason: synced.reason, message: synced.message };
  const hub = conditions.find((condition) => condition.type === 'HubReachable');
  if (hub?.status === 'False') return { reason: hub.reason, message: hub.message };
  return { reason: 'Progressing', message: `generation ${generation ?? 0} is on its way to the hub` };
}
