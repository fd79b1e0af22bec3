// One Monitor's side of the hub: put the spec when it must be (the hub has not accepted this generation,
// `meerkat.dev/sync-now` asks, or the hub's copy differs), start a run for `meerkat.dev/run-now`, read health. The
// outcome is the status to write; nothing here writes to Kubernetes.
import { diffJson } from '../../hub/src/contract/definition-diff.js';
import {
  monitorDefinitionSchema,
  type Monitor,
  type MonitorDefinition,
} from '../../hub/src/contract/monitor-definition.js';
import { monitorResourceToDefinition } from '../../hub/src/contract/monitor-resource.js';
import { definitionOf } from '../../hub/src/contract/stored-monitor.js';
import { describeHubFailure, HubUnreachableError, isHubRejection } from './hub-availability.js';
import { setCondition, toKubeTime } from './monitor-conditions.js';
import { redactRunError, withHealth, type LastRunDetails } from './monitor-health.js';
import { withReadiness } from './readiness.js';
import {
  RUN_NOW_ANNOTATION,
  SYNC_NOW_ANNOTATION,
  type MonitorResource,
  type MonitorResourceStatus,
} from './monitor-resource-status.js';
import type { ReconcileDependencies } from './reconcile-monitor.js';

export interface SyncOutcome {
  status: MonitorResourceStatus;
  /** The hub holds the monitor now (it accepted this spec or already had it). */
  hubHasMonitor: boolean;
  /** Only a change of the resource can help (a namespace refused its project): no periodic pass. */
  settled: boolean;
  /** Thrown by the reconcile after the status is written, so the queue retries. */
  failure?: Error;
}

export async function syncMonitor(
  resource: MonitorResource,
  deps: ReconcileDependencies,
): Promise<SyncOutcome> {
  const previous = resource.status ?? {};
  const { namespace, uid } = resource.metadata;
  const definition = definitionFor(resource, deps);
  const refusal = deps.projects?.refusal(namespace, String(definition.project));
  if (refusal !== undefined) {
    const status = withSynced(previous, resource, 'False', 'ProjectNotAllowed', refusal, deps.now());
    return { status: ready(status, resource, deps), hubHasMonitor: false, settled: true };
  }
  try {
    const put = await putWhenNeeded(resource, definition, deps);
    deps.availability?.reportAnswer();
    let status = withSynced(previous, resource, 'True', 'Synced', 'the spec is in the hub', deps.now());
    status = {
      ...status,
      monitorId: uid,
      updatedAt: put || previous.updatedAt === undefined ? toKubeTime(deps.now()) : previous.updatedAt,
      ...syncNowHandled(resource),
      conditions: setCondition(
        status.conditions,
        { type: 'HubReachable', status: 'True', reason: 'HubAnswered', message: 'the hub answers' },
        deps.now(),
      ),
    };
    status = await withRunNow(status, resource, definition, deps);
    status = await withHealthFrom(status, resource, deps);
    return { status: ready(status, resource, deps), hubHasMonitor: true, settled: false };
  } catch (error) {
    if (isHubRejection(error)) {
      deps.availability?.reportAnswer();
      const message = describeRejection(error, deps);
      const status = withSynced(previous, resource, 'False', 'HubRejectedSpec', message, deps.now());
      return { status: ready(status, resource, deps), hubHasMonitor: false, settled: false };
    }
    return { ...unreachable(resource, error, deps), hubHasMonitor: false, settled: false };
  }
}

/**
 * The hub did not answer: Synced stays as it was (the spec last accepted is still in the hub), and only an outage
 * longer than the grace period is reported, on a condition of its own.
 */
function unreachable(resource: MonitorResource, error: unknown, deps: ReconcileDependencies) {
  const previous = resource.status ?? {};
  deps.availability?.reportUnreachable(error);
  const failure = new HubUnreachableError(error);
  const outage = deps.availability
    ? deps.availability.outagePastGrace()
    : { since: deps.now(), error: describeHubFailure(error) };
  if (!outage) return { status: previous, failure };
  const condition = {
    type: 'HubReachable',
    status: 'False' as const,
    reason: 'HubUnreachable',
    message: `the hub has not answered since ${toKubeTime(outage.since)}: ${outage.error}; retried when it does`,
  };
  const status = { ...previous, conditions: setCondition(previous.conditions, condition, deps.now()) };
  return { status: ready(status, resource, deps), failure };
}

/** The kstatus conditions for this pass's status (readiness.ts). */
function ready(status: MonitorResourceStatus, resource: MonitorResource, deps: ReconcileDependencies) {
  return withReadiness(status, resource.metadata.generation, deps.now());
}

function definitionFor(resource: MonitorResource, deps: ReconcileDependencies): MonitorDefinition {
  const definition = monitorResourceToDefinition(resource);
  if (resource.spec?.project === undefined && deps.projects)
    definition.project = deps.projects.defaultProject(resource.metadata.namespace);
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
  if (accepted && !forced && deps.hub.getMonitor) {
    const inHub = await deps.hub.getMonitor(uid);
    if (inHub && sameDefinition(inHub, definition)) return false;
  }
  await deps.hub.putMonitor(uid, definition);
  return true;
}

/** The hub stores the definition as its schema parses it (defaults filled in), so compare with that. */
function sameDefinition(inHub: Monitor, definition: MonitorDefinition): boolean {
  const parsed = monitorDefinitionSchema.safeParse(definition);
  return parsed.success && diffJson(definitionOf(inHub), parsed.data).length === 0;
}

/** The `meerkat.dev/sync-now` value this pass handles (the annotation's, else the one handled before). */
function syncNowHandled(resource: MonitorResource): { syncNowToken?: string } {
  const token = resource.metadata.annotations?.[SYNC_NOW_ANNOTATION] ?? resource.status?.syncNowToken;
  return token === undefined ? {} : { syncNowToken: token };
}

function withSynced(
  previous: MonitorResourceStatus,
  resource: MonitorResource,
  status: 'True' | 'False',
  reason: string,
  message: string,
  now: Date,
): MonitorResourceStatus {
  const condition = {
    type: 'Synced',
    status,
    reason,
    message,
    observedGeneration: resource.metadata.generation,
  };
  return { ...previous, conditions: setCondition(previous.conditions, condition, now) };
}

/** A refusal naming another monitor by its id (a 409 on the identity) names its resource too, when known. */
function describeRejection(error: unknown, deps: ReconcileDependencies): string {
  const message = describeHubFailure(error);
  return message.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
    const owner = deps.resourceOfMonitorId?.(id);
    return owner ? `${id} (Monitor ${owner.namespace}/${owner.name})` : id;
  });
}

async function withRunNow(
  status: MonitorResourceStatus,
  resource: MonitorResource,
  definition: MonitorDefinition,
  deps: ReconcileDependencies,
): Promise<MonitorResourceStatus> {
  const token = resource.metadata.annotations?.[RUN_NOW_ANNOTATION];
  if (token === undefined || token === status.runNow?.token || !deps.hub.triggerRun) return status;
  try {
    const environment = definition.environment ?? 'default';
    const run = await deps.hub.triggerRun(resource.metadata.uid, { environment });
    deps.log.info({ monitorId: resource.metadata.uid, runId: run.id }, 'run started for meerkat.dev/run-now');
    return { ...status, runNow: { token, runId: run.id } };
  } catch (error) {
    if (!isHubRejection(error)) throw error;
    return { ...status, runNow: { token, message: describeHubFailure(error) } };
  }
}

/** Health is a view, not the sync: when the metrics cannot be read, the last figures stay and the sync stands. */
async function withHealthFrom(
  status: MonitorResourceStatus,
  resource: MonitorResource,
  deps: ReconcileDependencies,
): Promise<MonitorResourceStatus> {
  const id = resource.metadata.uid;
  if (deps.monitorUrl) status = { ...status, consoleUrl: deps.monitorUrl(id) };
  try {
    const figures = await deps.hub.getMonitorMetrics?.(id);
    if (!figures) return status;
    const last = figures.lastRun;
    const details: LastRunDetails = {};
    if (last?.id) {
      if (deps.runUrl) details.url = deps.runUrl(last.id);
      if (!last.success) details.error = await firstError(last.id, status, deps);
    }
    return withHealth(status, figures, details, resource.metadata.generation, deps.now());
  } catch (error) {
    deps.log.warn({ err: error, monitorId: id }, 'could not read the monitor’s health');
    return status;
  }
}

/** The first error of a failed run, read once per run (the status keeps it while the run stays the latest). */
async function firstError(runId: string, status: MonitorResourceStatus, deps: ReconcileDependencies) {
  if (status.lastRunId === runId && status.lastRunError !== undefined) return status.lastRunError;
  const run = await deps.hub.getRun?.(runId);
  const error = run?.errors[0];
  return error === undefined ? undefined : redactRunError(error);
}
