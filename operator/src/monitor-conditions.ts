// Kubernetes-style conditions: one entry per type, `lastTransitionTime` moves only when `status` changes.
import type { Condition } from './monitor-resource-status.js';

export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const previous = conditions?.find((condition) => condition.type === next.type);
  const lastTransitionTime =
    previous && previous.status === next.status ? previous.lastTransitionTime : toKubeTime(now);
  const others = (conditions ?? []).filter((condition) => condition.type !== next.type);
  return [...others, { ...next, lastTransitionTime }];
}

/** metav1.Time is RFC 3339 in whole seconds. */
export function toKubeTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}
