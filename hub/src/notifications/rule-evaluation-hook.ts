import type { Transaction } from 'kysely';
import { newId } from '../db/ids.js';
import type { Database } from '../db/tables.js';
import { monitorKey, type RunFinishedHook } from '../runs/run-finished.js';
import type { RunRow } from '../runs/run.repository.js';
import type { DeliveryJobData, DeliveryQueue } from './delivery-queue.js';
import { insertEvent } from './notification-event.repository.js';
import {
  lockEnabledRulesOfMonitors,
  saveRuleEvaluation,
  type NotificationRuleRow,
} from './notification-rule.repository.js';
import { latestRunsInLocation, runsInWindow } from './run-history.repository.js';
import { evaluateTrigger, type EvaluatedRun, type RunFacts } from './trigger-evaluation.js';
import { isSystemFailure } from '../runs/system-failure.js';

/** `chat:C0123`, `email`, `webhook`: the key of a channel in an event's `channelsNotified` and `deliveryStatus`. */
function channelKeyOf(routing: Record<string, unknown>): string {
  return routing.channelType === 'chat' ? `chat:${String(routing.channel)}` : String(routing.channelType);
}

function inCooldown(rule: NotificationRuleRow, at: Date): boolean {
  if (rule.last_triggered_at === null) return false;
  return at.getTime() < rule.last_triggered_at.getTime() + rule.cooldown_minutes * 60_000;
}

/** Remembers each lookup's promise by its argument, so rules asking the same question share one query. */
function memoizeByArgument<T>(lookup: (argument: number) => Promise<T>): (argument: number) => Promise<T> {
  const results = new Map<number, Promise<T>>();
  return (argument) => {
    let result = results.get(argument);
    if (result === undefined) {
      result = lookup(argument);
      results.set(argument, result);
    }
    return result;
  };
}

/**
 * The run history every rule of one finished run may ask about. The hook writes no runs, so the answers
 * stay valid for the whole evaluation and are read once per distinct argument.
 */
function runFactsOf(tx: Transaction<Database>, run: RunRow, at: Date): RunFacts {
  const org = run.organization_id;
  return {
    latestInLocation: memoizeByArgument((limit) =>
      latestRunsInLocation(tx, org, run.monitor_id, run.location, limit),
    ),
    inWindow: memoizeByArgument((minutes) =>
      runsInWindow(tx, org, run.monitor_id, new Date(at.getTime() - minutes * 60_000), at),
    ),
  };
}

async function evaluateRule(
  tx: Transaction<Database>,
  rule: NotificationRuleRow,
  run: RunRow,
  evaluated: EvaluatedRun,
  facts: RunFacts,
): Promise<DeliveryJobData | undefined> {
  const org = rule.organization_id;
  const state = rule.state;
  const verdict = await evaluateTrigger(
    rule.trigger,
    state,
    evaluated,
    facts,
    inCooldown(rule, evaluated.at),
  );
  if (!verdict.fire) {
    if (JSON.stringify(verdict.state) !== JSON.stringify(state))
      await saveRuleEvaluation(tx, org, rule.id, { state: verdict.state });
    return undefined;
  }
  const channelKey = channelKeyOf(rule.routing);
  const event = await insertEvent(tx, {
    organization_id: org,
    id: newId('evt'),
    rule_id: rule.id,
    monitor_id: run.monitor_id,
    run_id: run.id,
    trigger_reason: verdict.reason,
    channels_notified: JSON.stringify({
      [channelKey]: {
        ...rule.routing,
        integrationId: rule.integration_id,
        location: run.location,
        kind: verdict.kind,
      },
    }),
    delivery_status: JSON.stringify({ [channelKey]: { status: 'pending' } }),
    created_at: evaluated.at,
  });
  await saveRuleEvaluation(tx, org, rule.id, {
    state: verdict.state,
    last_triggered_at: evaluated.at,
  });
  return { organizationId: org, eventId: event.id, channelKey, ruleId: rule.id };
}

/**
 * Evaluates the rules of each run's monitor in the transaction that records the runs. The rule rows stay
 * locked until that transaction commits, so two workers finishing runs of one monitor evaluate one after the
 * other and a condition fires once. Delivery jobs are enqueued before the commit; the delivery handler first
 * waits on the same rule lock, so it never reads the event before it is committed (and finds none if it rolled
 * back). One query finds (and locks) the rules of every run's monitor: most monitors have none.
 */
export function ruleEvaluationHook(deliveries: DeliveryQueue): RunFinishedHook {
  return {
    name: 'notification-rules',
    async onRunsFinished(tx, runs) {
      // A run Meerkat failed itself (the reaper, a refused result) says nothing about the target: no rule sees it.
      const judged = runs.filter((run) => !isSystemFailure(run));
      const rules = await lockEnabledRulesOfMonitors(
        tx,
        judged.map((run) => ({ organizationId: run.organization_id, monitorId: run.monitor_id })),
      );
      const rulesOf = new Map<string, NotificationRuleRow[]>();
      for (const rule of rules)
        rulesOf.set(monitorKey(rule), [...(rulesOf.get(monitorKey(rule)) ?? []), rule]);
      const jobs: DeliveryJobData[] = [];
      for (const run of judged) {
        const own = rulesOf.get(monitorKey(run)) ?? [];
        if (own.length === 0) continue;
        const evaluated: EvaluatedRun = {
          id: run.id,
          location: run.location,
          success: run.success === true,
          errors: run.errors,
          at: run.completed_at ?? new Date(),
        };
        const facts = runFactsOf(tx, run, evaluated.at);
        for (const rule of own) {
          const job = await evaluateRule(tx, rule, run, evaluated, facts);
          if (job !== undefined) jobs.push(job);
        }
      }
      for (const job of jobs) await deliveries.enqueue(job);
    },
  };
}
