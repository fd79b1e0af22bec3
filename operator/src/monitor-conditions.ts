// Kubernetes-style conditions: one entry per type, `lastTransitionTime` moves only when `status` changes.
import { isDeepStrictEqual } from 'node:util';
import type { Condition, MonitorResourceStatus } from './monitor-resource-status.js';

/** Sets one condition in place (its position kept, so a repeated pass yields the same list). */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const list = conditions ?? [];
  const previous = list.find((condition) => condition.type === next.type);
  const lastTransitionTime =
    previous && previous.status === next.status ? previous.lastTransitionTime : toKubeTime(now);
  const updated = { ...next, lastTransitionTime };
  return previous
    ? list.map((condition) => (condition === previous ? updated : condition))
    : [...list, updated];
}

/**
 * Whether two statuses say the same: key order and condition order do not matter (the API server and JSON text
 * disagree on both), so only a real change causes a write.
 */
export function sameStatus(
  a: MonitorResourceStatus | undefined,
  b: MonitorResourceStatus | undefined,
): boolean {
  const normalize = (status: MonitorResourceStatus | undefined) => {
    // Through JSON, as the API server stores it: an undefined field is an absent one.
    const { conditions, ...rest } = JSON.parse(JSON.stringify(status ?? {})) as MonitorResourceStatus;
    return { rest, conditions: [...(conditions ?? [])].sort((x, y) => x.type.localeCompare(y.type)) };
  };
  return isDeepStrictEqual(normalize(a), normalize(b));
}

/** metav1.Time is RFC 3339 in whole seconds. */
export function toKubeTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The list without conditions of these types (kstatus' abnormal-true types are absent when they do not apply). */
export function withoutConditions(conditions: readonly Condition[], ...types: string[]): Condition[] {
  return conditions.filter((condition) => !types.includes(condition.type));
}
