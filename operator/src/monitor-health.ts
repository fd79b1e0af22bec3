// The hub's metrics of one monitor, as Monitor status: the HEALTH, SUCCESS, P95 and LAST RUN columns and the
// `Healthy` condition. Figures come from `GET /metrics/monitors/{id}` (docs/metrics.md) over its default period.
import { setCondition, toKubeTime } from './monitor-conditions.js';
import type { MonitorEvent } from './monitor-events.js';
import type { Condition, MonitorResourceStatus } from './monitor-resource-status.js';

/** The part of the hub's monitor metrics the status shows. */
export interface MonitorHealthFigures {
  status: string;
  runs: { total: number; successRate: number };
  latency: { p95DurationMs: number };
  lastRun: { startedAt: string; durationMs: number; success: boolean } | null;
}

function healthyCondition(figures: MonitorHealthFigures): Omit<Condition, 'lastTransitionTime'> {
  if (figures.status === 'healthy')
    return { type: 'Healthy', status: 'True', reason: 'Healthy', message: 'the latest runs pass' };
  if (figures.status === 'failing')
    return { type: 'Healthy', status: 'False', reason: 'Failing', message: 'the latest run failed' };
  if (figures.runs.total === 0)
    return { type: 'Healthy', status: 'Unknown', reason: 'NoRecentRuns', message: 'no run in the period' };
  return {
    type: 'Healthy',
    status: 'False',
    reason: 'Degraded',
    message: `success rate ${figures.runs.successRate}% is below the hub's threshold`,
  };
}

export function withHealth(
  status: MonitorResourceStatus,
  figures: MonitorHealthFigures,
  generation: number | undefined,
  now: Date,
): MonitorResourceStatus {
  const ran = figures.runs.total > 0;
  const { successRate: _rate, p95Ms: _p95, lastRun: _last, ...rest } = status;
  const finished = figures.lastRun
    ? new Date(Date.parse(figures.lastRun.startedAt) + figures.lastRun.durationMs)
    : undefined;
  return {
    ...rest,
    health: figures.status,
    ...(ran
      ? { successRate: `${figures.runs.successRate}%`, p95Ms: Math.round(figures.latency.p95DurationMs) }
      : {}),
    ...(finished ? { lastRun: toKubeTime(finished) } : {}),
    conditions: setCondition(
      status.conditions,
      {
        ...healthyCondition(figures),
        ...(generation === undefined ? {} : { observedGeneration: generation }),
      },
      now,
    ),
  };
}

/** An Event when a condition's status or reason changed (a new Synced failure, a health change); else none. */
export function conditionEvent(
  type: 'Synced' | 'Healthy',
  before: MonitorResourceStatus | undefined,
  after: MonitorResourceStatus,
): MonitorEvent | undefined {
  const previous = before?.conditions?.find((condition) => condition.type === type);
  const next = after.conditions?.find((condition) => condition.type === type);
  if (!next) return undefined;
  const changed =
    previous?.status !== next.status || previous.reason !== next.reason || previous.message !== next.message;
  if (!changed) return undefined;
  if (type === 'Synced') {
    // A first successful sync is the normal case and says nothing new; failures and recoveries do.
    if (next.status === 'True' && (previous === undefined || previous.status === 'True')) return undefined;
    return {
      type: next.status === 'True' ? 'Normal' : 'Warning',
      reason: next.status === 'True' ? 'Synced' : next.reason,
      message: next.message,
    };
  }
  if (previous?.status === next.status && previous.reason === next.reason) return undefined;
  return {
    type: next.status === 'False' ? 'Warning' : 'Normal',
    reason: 'HealthChanged',
    message: `${next.reason}: ${next.message}`,
  };
}
