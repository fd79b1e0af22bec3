// One Monitor's side of the hub: put the spec when it must be (the hub has not accepted this generation,
// `meerkat.dev/sync-now` asks, or the hub's copy differs), start a run for `meerkat.dev/run-now`, take health from
// the fleet sweep (ADR 0049). The
// outcome is what the pass observed (desired-status.ts turns it into the status); nothing here writes to Kubernetes.
import { diffJson } from '../../hub/src/contract/definition-diff.js';
import {
  monitorDefinitionSchema,
  type Monitor,
  type MonitorDefinition,
} from '../../hub/src/contract/monitor-definition.js';
import { monitorResourceToDefinition } from '../../hub/src/contract/monitor-resource.js';
import { definitionOf } from '../../hub/src/contract/stored-monitor.js';
import { describeHubFailure, HubUnreachableError, isHubRejection } from './hub-availability.js';
import { syncNowHandled, type HubObservation, type RunNowOutcome } from './desired-status.js';
import { figuresOfRow, healthDiffers, rowLacksLatestRun } from './fleet-health.js';
import { managedLabels } from './managed-monitors.js';
import { redactRunError, type LastRunDetails, type MonitorHealthFigures } from './monitor-health.js';
import {
  RUN_NOW_ANNOTATION,
  type MonitorResource,
  type MonitorResourceStatus,
} from './monitor-resource-status.js';
import type { ReconcileDependencies } from './reconcile-monitor.js';

export interface SyncOutcome {
  /** What the pass learnt of the hub; desiredStatus() turns it into the status. */
  observation: HubObservation;
  /** Thrown by the reconcile after the status is written, so the queue retries. */
  failure?: Error;
}

export async function syncMonitor(
  resource: MonitorResource,
  deps: ReconcileDependencies,
): Promise<SyncOutcome> {
  const { namespace, uid } = resource.metadata;
  const definition = definitionFor(resource, deps);
  const refusal = deps.projects.refusal(namespace, String(definition.project));
  if (refusal !== undefined)
    return { observation: { kind: 'refused', reason: 'ProjectNotAllowed', message: refusal } };
  try {
    const put = await putWhenNeeded(resource, definition, deps);
    deps.availability.reportAnswer();
    const runNow = await runNowOutcome(resource, definition, deps);
    const health = await readHealth(resource, deps);
    const consoleUrl = deps.monitorUrl(uid);
    return { observation: { kind: 'synced', put, consoleUrl, runNow, health } };
  } catch (error) {
    if (isHubRejection(error)) {
      deps.availability.reportAnswer();
      const message = describeRejection(error, deps);
      return { observation: { kind: 'refused', reason: 'HubRejectedSpec', message } };
    }
    // The hub did not answer: only an outage longer than the grace period is reported (desiredStatus).
    deps.availability.reportUnreachable(error);
    const outage = deps.availability.outagePastGrace();
    return { observation: { kind: 'unreachable', outage }, failure: new HubUnreachableError(error) };
  }
}

/**
 * The spec as the hub takes it, labelled as this operator's so the resync can collect it when it is gone (ADR 0065).
 * bench:monitor-sync sends the hub these bodies too.
 */
export function definitionFor(
  resource: MonitorResource,
  deps: Pick<ReconcileDependencies, 'projects' | 'clusterName'>,
): MonitorDefinition {
  const definition = monitorResourceToDefinition(resource);
  if (resource.spec?.project === undefined)
    definition.project = deps.projects.defaultProject(resource.metadata.namespace);
  const own = definition.labels as Record<string, string> | undefined;
  definition.labels = { ...own, ...managedLabels(deps.clusterName, resource.metadata.namespace) };
  return definition as unknown as MonitorDefinition;
}

/** Puts the spec unless the hub already holds this generation as it is; true when it put. */
async function putWhenNeeded(
  resource: MonitorResource,
  definition: MonitorDefinition,
  deps: ReconcileDependencies,
): Promise<boolean> {
  const previous = resource.status ?? {};
  const { uid, generation } = resource.metadata;
  // status.observedGeneration also moves on a refusal (kstatus); the Synced condition says what was accepted.
  const synced = previous.conditions?.find((condition) => condition.type === 'Synced');
  const accepted =
    synced?.status === 'True' && synced.observedGeneration === generation && previous.monitorId === uid;
  const forced = syncNowHandled(resource).syncNowToken !== previous.syncNowToken;
  if (accepted && !forced) {
    const listed = await deps.hubCopies.copyOf(uid);
    const inHub = listed === undefined ? await deps.hub.getMonitor(uid) : listed;
    if (inHub && sameDefinition(inHub, definition)) return false;
  }
  // The hub's answer is the copy the next pass compares with (the echo of this pass's status write): no GET.
  await deps.hubCopies.put(uid, () => deps.hub.putMonitor(uid, definition));
  return true;
}

/** The hub stores the definition as its schema parses it (defaults filled in), so compare with that. */
function sameDefinition(inHub: Monitor, definition: MonitorDefinition): boolean {
  const parsed = monitorDefinitionSchema.safeParse(definition);
  return parsed.success && diffJson(definitionOf(inHub), parsed.data).length === 0;
}

/** A refusal naming another monitor by its id (a 409 on the identity) names its resource too, when known. */
function describeRejection(error: unknown, deps: ReconcileDependencies): string {
  const message = describeHubFailure(error);
  return message.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
    const owner = deps.resourceOfMonitorId(id);
    return owner ? `${id} (Monitor ${owner.namespace}/${owner.name})` : id;
  });
}

async function runNowOutcome(
  resource: MonitorResource,
  definition: MonitorDefinition,
  deps: ReconcileDependencies,
): Promise<RunNowOutcome | undefined> {
  const token = resource.metadata.annotations?.[RUN_NOW_ANNOTATION];
  if (token === undefined || token === resource.status?.runNow?.token) return undefined;
  try {
    const environment = definition.environment ?? 'default';
    const run = await deps.hub.triggerRun(resource.metadata.uid, { environment });
    deps.log.info({ monitorId: resource.metadata.uid, runId: run.id }, 'run started for meerkat.dev/run-now');
    return { token, runId: run.id };
  } catch (error) {
    if (!isHubRejection(error)) throw error;
    return { token, message: describeHubFailure(error) };
  }
}

/** The figures of a monitor with no run in the hub's period, as a sweep's row with none gives them. */
const NEVER_RAN: MonitorHealthFigures = {
  status: 'unknown',
  runs: { total: 0, successRate: 0 },
  lastRun: null,
};

/**
 * Health is a view, not the sync: when it cannot be read, the last figures stay and the sync stands. The last fleet
 * sweep's row (fleet-health.ts) says whether health moved, and its figures and latest run are what the status
 * shows (ADR 0073): no per-Monitor metrics read. A Monitor the last sweep did not list (new since: it has not run)
 * keeps its status until the next sweep lists it, so it costs no read either; one with no health yet says it has not
 * run (ADR 0089). `GET /metrics/monitors/{id}` stays
 * only for a row from a hub older than ADR 0073, which lists no latest run id; the run itself is read once per
 * failed latest run, for its first error.
 */
async function readHealth(resource: MonitorResource, deps: ReconcileDependencies) {
  const id = resource.metadata.uid;
  const row = deps.fleetHealth.rowOf(id);
  const now = deps.now();
  // Not listed yet, and no health in the status (a new Monitor): it has not run, which the status says now, as the
  // sweep's first row of it would, so that row finds nothing moved and costs no status write of its own (ADR 0089).
  if (row === undefined && resource.status?.health === undefined) return { figures: NEVER_RAN, details: {} };
  if (row === undefined || !healthDiffers(resource.status, row, now)) return undefined;
  try {
    const figures = rowLacksLatestRun(row) ? await deps.hub.getMonitorMetrics(id) : figuresOfRow(row, now);
    if (!figures) return undefined;
    const last = figures.lastRun;
    const details: LastRunDetails = {};
    if (last?.id) {
      details.url = deps.runUrl(last.id);
      if (!last.success) details.error = await firstError(last.id, resource.status ?? {}, deps);
    }
    return { figures, details };
  } catch (error) {
    deps.log.warn({ err: error, monitorId: id }, 'could not read the monitor’s health');
    return undefined;
  }
}

/** The first error of a failed run, read once per run (the status keeps it while the run stays the latest). */
async function firstError(runId: string, status: MonitorResourceStatus, deps: ReconcileDependencies) {
  if (status.lastRunId === runId && status.lastRunError !== undefined) return status.lastRunError;
  const run = await deps.hub.getRun(runId);
  const error = run?.errors[0];
  return error === undefined ? undefined : redactRunError(error);
}
