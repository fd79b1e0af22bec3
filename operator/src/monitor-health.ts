// The hub's metrics of one monitor, as Monitor status: the HEALTH, SUCCESS and LAST RUN columns, the latest run
// (id, result, first error, URL) and the `Healthy` condition. Figures come from the Monitor's row of the fleet
// sweep's `GET /metrics/monitors` over 24 hours (docs/metrics.md, ADR 0073), shown coarse (coarse-figures.ts,
// ADR 0054); latency is left to the hub's console and `meerkat get` (ADR 0063).
import { coarseSuccessRate } from './coarse-figures.js';
import { setCondition, toKubeTime } from './monitor-conditions.js';
import type { MonitorEvent } from './monitor-events.js';
import type { Condition, MonitorResourceStatus } from './monitor-resource-status.js';

/** The part of the hub's monitor metrics the status shows. */
export interface MonitorHealthFigures {
  status: string;
  runs: { total: number; successRate: number };
  lastRun: { id?: string; startedAt: string; durationMs: number; success: boolean } | null;
}

/** What the status says of the latest run beyond the figures (read from the run itself when it failed). */
export interface LastRunDetails {
  error?: string | undefined;
  url?: string | undefined;
}

const HEALTH_VALUES = ['healthy', 'degraded', 'failing'] as const;

function healthyCondition(
  figures: MonitorHealthFigures,
  details: LastRunDetails,
): Omit<Condition, 'lastTransitionTime'> {
  if (figures.runs.total === 0)
    return { type: 'Healthy', status: 'Unknown', reason: 'NoRecentRuns', message: 'no run in the period' };
  if (figures.status === 'healthy')
    return { type: 'Healthy', status: 'True', reason: 'Healthy', message: 'the latest runs pass' };
  if (figures.status === 'failing') {
    const run = figures.lastRun?.id ? `the latest run ${figures.lastRun.id} failed` : 'the latest run failed';
    return {
      type: 'Healthy',
      status: 'False',
      reason: 'Failing',
      message: details.error ? `${run}: ${details.error}` : run,
    };
  }
  return {
    type: 'Healthy',
    status: 'False',
    reason: 'Degraded',
    message: `success rate ${coarseSuccessRate(figures.runs.successRate)} is below the hub's threshold`,
  };
}

/** The columns the figures decide, as the status shows them: coarse (ADR 0054), no latency (ADR 0063). */
export function healthColumns(
  figures: MonitorHealthFigures,
): Pick<MonitorResourceStatus, 'health' | 'successRate' | 'lastRunResult'> {
  const ran = figures.runs.total > 0;
  const health = HEALTH_VALUES.find((value) => value === figures.status);
  const last = figures.lastRun;
  return {
    health: ran && health ? health : 'unknown',
    ...(ran ? { successRate: coarseSuccessRate(figures.runs.successRate) } : {}),
    ...(last ? { lastRunResult: last.success ? ('Passed' as const) : ('Failed' as const) } : {}),
  };
}

/**
 * The status with the figures of this pass. Every figure field is set or removed here, so a figure that no longer
 * applies (no run in the period) disappears instead of standing stale beside `Healthy=Unknown`.
 */
export function withHealth(
  status: MonitorResourceStatus,
  figures: MonitorHealthFigures,
  details: LastRunDetails,
  generation: number | undefined,
  now: Date,
): MonitorResourceStatus {
  const {
    health: _health,
    successRate: _rate,
    lastRun: _last,
    lastRunId: _id,
    lastRunResult: _result,
    lastRunError: _error,
    lastRunUrl: _url,
    ...rest
  } = status;
  const last = figures.lastRun;
  return {
    ...rest,
    ...healthColumns(figures),
    ...(last
      ? {
          lastRun: toKubeTime(new Date(Date.parse(last.startedAt) + last.durationMs)),
          ...(last.id ? { lastRunId: last.id } : {}),
          ...(details.error && !last.success ? { lastRunError: details.error } : {}),
          ...(details.url ? { lastRunUrl: details.url } : {}),
        }
      : {}),
    conditions: setCondition(
      status.conditions,
      {
        ...healthyCondition(figures, details),
        ...(generation === undefined ? {} : { observedGeneration: generation }),
      },
      now,
    ),
  };
}

const MAX_ERROR_LENGTH = 512;
/**
 * A run error as the status may show it. The hub never stores secret values in a run, but a target's own answer
 * can echo a credential (an `Authorization` header in an error body), so anything shaped like one is masked.
 */
export function redactRunError(error: string): string {
  const masked = error
    .replace(/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]')
    .replace(/\bmk_[A-Za-z0-9_-]+/g, '[redacted]')
    .replace(/\b(password|passwd|secret|token|api[_-]?key)=[^&\s]+/gi, '$1=[redacted]');
  return masked.length > MAX_ERROR_LENGTH ? `${masked.slice(0, MAX_ERROR_LENGTH - 1)}…` : masked;
}

/** An Event when a condition's status or reason changed (a new Synced failure, a health change); else none. */
export function conditionEvent(
  type: 'Synced' | 'Healthy' | 'HubReachable',
  before: MonitorResourceStatus | undefined,
  after: MonitorResourceStatus,
): MonitorEvent | undefined {
  const previous = before?.conditions?.find((condition) => condition.type === type);
  const next = after.conditions?.find((condition) => condition.type === type);
  if (!next) return undefined;
  const changed =
    previous?.status !== next.status || previous.reason !== next.reason || previous.message !== next.message;
  if (!changed) return undefined;
  if (type === 'HubReachable') {
    // One Event per outage: when it is declared, not when it ends (the Synced condition never moved meanwhile).
    if (next.status !== 'False' || previous?.status === 'False') return undefined;
    return { type: 'Warning', reason: next.reason, message: next.message };
  }
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
  // A Monitor that has never run has no health to change from: its first `Healthy=Unknown NoRecentRuns` is not
  // news (10,000 Events per `kubectl apply` of a fleet, issue 39). Its first run's verdict is.
  if (after.lastRun === undefined && next.status === 'Unknown') return undefined;
  return {
    type: next.status === 'False' ? 'Warning' : 'Normal',
    reason: 'HealthChanged',
    message: `${next.reason}: ${next.message}`,
  };
}
