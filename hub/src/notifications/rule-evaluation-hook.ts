import type { Db, DbTransaction } from '../db/database.js';
import { newId } from '../db/ids.js';
import type { HeldBy } from '../db/tables.js';
import { lookUpMutes, type MutableRun } from '../maintenance/mutes.js';
import { monitorKey, type RunFinishedHook } from '../runs/run-finished.js';
import type { RunRow } from '../runs/run.repository.js';
import type { DeliveryJobData, DeliveryQueue } from './delivery-queue.js';
import { insertEvent } from './notification-event.repository.js';
import { drainNotificationOutbox } from './notification-outbox.js';
import { recordDeliveries } from './notification-outbox.repository.js';
import {
  lockEnabledRulesOfMonitors,
  saveRuleEvaluation,
  type NotificationRuleRow,
} from './notification-rule.repository.js';
import { latestRunsInLocation, runsInWindow } from './run-history.repository.js';
import { dropHeld, heldStatus, releaseHeld } from './held-notifications.js';
import { evaluateTrigger, type EvaluatedRun, type RunFacts, type Verdict } from './trigger-evaluation.js';
import { isSystemFailure } from '../runs/system-failure.js';
import { jsonColumn } from '../db/json-column.js';

/** `chat:C0123`, `email`, `webhook`: the key of a channel in an event's `channelsNotified` and `deliveryStatus`. */
function channelKeyOf(routing: Record<string, unknown>): string {
  return routing.channelType === 'chat' ? `chat:${String(routing.channel)}` : String(routing.channelType);
}

function mutableRunOf(run: RunRow): MutableRun {
  return {
    organizationId: run.organization_id,
    monitorId: run.monitor_id,
    environment: run.environment,
    location: run.location,
    at: evaluatedAtOf(run),
  };
}

/** When a run is judged: its completion (a run recorded without one is judged now). */
function evaluatedAtOf(run: RunRow): Date {
  return run.completed_at ?? new Date();
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
function runFactsOf(tx: DbTransaction, run: RunRow, at: Date): RunFacts {
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

/** What a rule tells people after a run: a failure, a reminder that it still holds, or a recovery. */
interface Notice {
  kind: 'failure' | 'recovery' | 'reminder';
  reason: string;
}

/** The verdict's own notification, else a reminder (`repeatMinutes`) or a resolution (`sendResolved`). */
function noticeOf(rule: NotificationRuleRow, verdict: Verdict, at: Date, held: boolean): Notice | undefined {
  if (verdict.fire) return { kind: verdict.kind, reason: verdict.reason };
  const last = rule.last_triggered_at;
  // A reminder while a silence or window holds the monitor would only stand in for what is already held.
  if (
    !held &&
    verdict.notified &&
    rule.repeat_minutes !== null &&
    last !== null &&
    at.getTime() >= last.getTime() + rule.repeat_minutes * 60_000
  )
    return { kind: 'reminder', reason: `still failing: ${verdict.reason ?? 'the condition holds'}` };
  if (verdict.cleared && rule.send_resolved)
    return { kind: 'recovery', reason: `resolved: ${triggerName(rule)} no longer holds` };
  return undefined;
}

function triggerName(rule: NotificationRuleRow): string {
  return rule.trigger.type.replaceAll('_', ' ');
}

/**
 * Evaluates one rule for one run. A notification is recorded as an event to deliver, or, when a silence or
 * maintenance window holds the run (`heldBy`), recorded as held in place of the rule's previous held one. The
 * first run nothing holds releases the held notification (held-notifications.ts); it stands for that run's own.
 */
async function evaluateRule(
  tx: DbTransaction,
  rule: NotificationRuleRow,
  run: RunRow,
  evaluated: EvaluatedRun,
  facts: RunFacts,
  heldBy: HeldBy | undefined,
): Promise<DeliveryJobData | undefined> {
  const org = rule.organization_id;
  const at = evaluated.at;
  const verdict = await evaluateTrigger(rule.trigger, rule.state, evaluated, facts, inCooldown(rule, at));
  const where = run.location;
  const { [where]: heldEventId, ...heldElsewhere } = verdict.state.heldEvents ?? {};
  const { heldEvents: _held, ...unheld } = verdict.state;
  // Only a rule that holds something carries `heldEvents`, so most evaluations leave the state as it was.
  const state = Object.keys(heldElsewhere).length === 0 ? unheld : { ...unheld, heldEvents: heldElsewhere };
  if (heldEventId !== undefined && heldBy === undefined) {
    const released = await releaseHeld(
      tx,
      rule,
      heldEventId,
      { ...evaluated, monitorId: run.monitor_id },
      verdict.holds,
    );
    if (released !== undefined) {
      await saveRuleEvaluation(tx, org, rule.id, { state, last_triggered_at: at });
      return released;
    }
  }
  const notice = noticeOf(rule, verdict, at, heldBy !== undefined);
  if (notice === undefined) {
    const kept = heldBy === undefined ? state : verdict.state;
    if (JSON.stringify(kept) !== JSON.stringify(rule.state))
      await saveRuleEvaluation(tx, org, rule.id, { state: kept });
    return undefined;
  }
  const channelKey = channelKeyOf(rule.routing);
  const event = await insertEvent(tx, {
    organization_id: org,
    id: newId('evt'),
    rule_id: rule.id,
    monitor_id: run.monitor_id,
    run_id: run.id,
    trigger_reason: notice.reason,
    channels_notified: jsonColumn({
      [channelKey]: {
        ...rule.routing,
        integrationId: rule.integration_id,
        location: run.location,
        kind: notice.kind,
      },
    }),
    delivery_status: jsonColumn({
      [channelKey]: heldBy === undefined ? { status: 'pending' } : heldStatus(heldBy),
    }),
    held_by: heldBy === undefined ? null : jsonColumn(heldBy),
    created_at: at,
  });
  if (heldBy !== undefined) {
    if (heldEventId !== undefined) await dropHeld(tx, rule, heldEventId, `superseded by ${event.id}`, at);
    await saveRuleEvaluation(tx, org, rule.id, {
      state: { ...state, heldEvents: { ...heldElsewhere, [where]: event.id } },
      last_triggered_at: at,
    });
    return undefined;
  }
  await saveRuleEvaluation(tx, org, rule.id, { state, last_triggered_at: at });
  return { organizationId: org, eventId: event.id, channelKey, ruleId: rule.id };
}

/**
 * Evaluates the rules of each run's monitor in the transaction that records the runs. The rule rows stay
 * locked until that transaction commits, so two workers finishing runs of one monitor evaluate one after the
 * other and a condition fires once. What fires is written to the notification outbox in that transaction and
 * handed to `deliveries` once it committed (docs/adr/0051-notification-outbox.md): a rolled-back transaction
 * leaves no delivery, and a queue that fails then (Redis away) leaves the rows to the outbox sweep instead of
 * failing the runs. One query finds (and locks) the rules of every run's monitor: most monitors have none.
 */
export function ruleEvaluationHook(
  deliveries: DeliveryQueue,
  options: { onDrainFailure?: (error: unknown) => void } = {},
): RunFinishedHook {
  const afterCommit = async (db: Db) => {
    try {
      await drainNotificationOutbox(db, deliveries);
    } catch (error) {
      options.onDrainFailure?.(error);
    }
  };
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
      const ruled = judged.filter((run) => rulesOf.has(monitorKey(run)));
      const mutes = await lookUpMutes(tx, ruled.map(mutableRunOf));
      const jobs: DeliveryJobData[] = [];
      for (const run of ruled) {
        const own = rulesOf.get(monitorKey(run)) ?? [];
        const evaluated: EvaluatedRun = {
          id: run.id,
          location: run.location,
          success: run.success === true,
          errors: run.errors,
          at: evaluatedAtOf(run),
        };
        const facts = runFactsOf(tx, run, evaluated.at);
        const heldBy = mutes.muteOf({ ...mutableRunOf(run), at: evaluated.at })?.heldBy;
        for (const rule of own) {
          const job = await evaluateRule(tx, rule, run, evaluated, facts, heldBy);
          if (job !== undefined) jobs.push(job);
        }
      }
      if (jobs.length === 0) return undefined;
      await recordDeliveries(tx, jobs);
      return afterCommit;
    },
  };
}
