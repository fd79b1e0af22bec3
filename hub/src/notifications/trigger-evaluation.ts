import type { Trigger } from '../contract/notification-definition.js';
import type { RuleState } from '../db/tables.js';
import type { FinishedRun } from './run-history.repository.js';

export interface EvaluatedRun {
  id: string;
  location: string;
  success: boolean;
  errors: string[];
  at: Date;
}

/** The run history a trigger may ask about, read inside the evaluating transaction. */
export interface RunFacts {
  latestInLocation(limit: number): Promise<FinishedRun[]>;
  inWindow(minutes: number): Promise<FinishedRun[]>;
}

/**
 * What one run did to a rule. `holds`: the failure condition is true after the run (a held notification of it is
 * still worth sending); `notified`: it holds and was notified (a reminder may repeat it); `cleared`: a condition
 * that was notified has just ended (a "resolved" notification may say so). `reason` says what holds.
 */
interface Judgement {
  state: RuleState;
  holds: boolean;
  notified: boolean;
  cleared: boolean;
  reason?: string;
}
export type Verdict =
  (Judgement & { fire: false }) | (Judgement & { fire: true; reason: string; kind: 'failure' | 'recovery' });

const quiet = (state: RuleState, extra: Partial<Judgement> = {}): Verdict => ({
  fire: false,
  state,
  holds: false,
  notified: false,
  cleared: false,
  ...extra,
});

/** Nearest-rank percentile of `values` (non-empty). */
function nearestRankPercentile(values: number[], percentile: 'p50' | 'p95' | 'p99'): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((Number(percentile.slice(1)) / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)] as number;
}

function formatPercent(value: number): string {
  return `${Number(value.toFixed(1))}%`;
}

/** Edge-triggered: fires when the condition becomes true (and cooldown allows), re-arms when it clears. */
function edge(state: RuleState, conditionMet: boolean, inCooldown: boolean, reason: string): Verdict {
  if (!conditionMet) return quiet({ ...state, active: false }, { cleared: state.active === true });
  if (state.active === true || inCooldown)
    return quiet(state, { holds: true, notified: state.active === true, reason });
  const active = { ...state, active: true };
  return { fire: true, state: active, reason, kind: 'failure', holds: true, notified: true, cleared: false };
}

/**
 * Decides whether `trigger` fires for the run just finished. Cooldown suppresses every trigger except
 * run_recovered, which must always close what a failure notification opened.
 */
export async function evaluateTrigger(
  trigger: Trigger,
  state: RuleState,
  run: EvaluatedRun,
  facts: RunFacts,
  inCooldown: boolean,
): Promise<Verdict> {
  const where = run.location;
  switch (trigger.type) {
    case 'run_failed': {
      if (run.success) return quiet(state);
      const why = run.errors[0] === undefined ? '' : `: ${run.errors[0]}`;
      const reason = `run failed in ${where}${why}`;
      // Each failure is its own notification; the cooldown only spaces them.
      if (inCooldown) return quiet(state, { holds: true, notified: true, reason });
      return { fire: true, state, reason, kind: 'failure', holds: true, notified: true, cleared: false };
    }
    case 'run_recovered': {
      if (!run.success) return quiet(state);
      const [latest, previous] = await facts.latestInLocation(2);
      const before = latest?.id === run.id ? previous : latest;
      if (before === undefined || before.success) return quiet(state);
      const reason = `recovered in ${where}: the run passed after a failure`;
      return { fire: true, state, reason, kind: 'recovery', holds: false, notified: false, cleared: false };
    }
    case 'consecutive_failures': {
      const streaks = { ...state.notifiedStreaks };
      if (run.success) {
        const cleared = streaks[where] === true;
        delete streaks[where];
        return quiet({ ...state, notifiedStreaks: streaks }, { cleared });
      }
      const latest = await facts.latestInLocation(trigger.threshold);
      const reached = latest.length === trigger.threshold && latest.every((r) => !r.success);
      const reason = `${trigger.threshold} consecutive failures in ${where} (threshold ${trigger.threshold})`;
      if (!reached) return quiet(state);
      if (streaks[where] === true || inCooldown)
        return quiet(state, { holds: true, notified: streaks[where] === true, reason });
      streaks[where] = true;
      return {
        fire: true,
        state: { ...state, notifiedStreaks: streaks },
        reason,
        kind: 'failure',
        holds: true,
        notified: true,
        cleared: false,
      };
    }
    case 'success_rate_below': {
      const runs = await facts.inWindow(trigger.window_minutes);
      const rate = runs.length === 0 ? 100 : (runs.filter((r) => r.success).length / runs.length) * 100;
      const reason =
        `success rate ${formatPercent(rate)} over the last ${trigger.window_minutes} minutes ` +
        `(threshold ${formatPercent(trigger.threshold)}, ${runs.length} runs)`;
      return edge(state, runs.length > 0 && rate < trigger.threshold, inCooldown, reason);
    }
    case 'latency_above': {
      const durations = (await facts.inWindow(trigger.window_minutes))
        .map((r) => r.durationMs)
        .filter((d): d is number => d !== null);
      const value = durations.length === 0 ? 0 : nearestRankPercentile(durations, trigger.percentile);
      const reason =
        `${trigger.percentile} latency ${value} ms over the last ${trigger.window_minutes} minutes ` +
        `(threshold ${trigger.threshold_ms} ms)`;
      return edge(state, durations.length > 0 && value > trigger.threshold_ms, inCooldown, reason);
    }
  }
}
