// Level-based reconcile of one Monitor resource: read it, make the hub match it, record the outcome in its status.
// The hub monitor's id is the resource's uid, so repeating a reconcile (after a lost status write, a restart, a
// relist) updates the same monitor and never creates a second one. Sync is edge-driven: the spec is put when the
// generation the hub accepted is not the resource's, when `meerkat.dev/sync-now` asks, or when the hub's copy
// differs (one GET); a periodic pass otherwise only reads health. The status is written only when it changed.
import type { Logger } from 'pino';
import type { MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import type { Monitor } from '../../hub/src/contract/monitor-definition.js';
import type { Run } from '../../hub/src/contract/run.js';
import { HubRequestError } from '../../hub/src/client/hub-client.js';
import {
  describeHubFailure,
  HubUnreachableError,
  isHubRejection,
  type HubAvailability,
} from './hub-availability.js';
import { sameStatus, setCondition } from './monitor-conditions.js';
import type { MonitorEvents } from './monitor-events.js';
import { conditionEvent, type MonitorHealthFigures } from './monitor-health.js';
import {
  CLEANUP_FINALIZER,
  type MonitorResource,
  type MonitorResourceStatus,
} from './monitor-resource-status.js';
import { syncMonitor } from './monitor-sync.js';
import { withReadiness } from './readiness.js';
import type { ProjectPolicy } from './project-tenancy.js';

export interface MonitorKey {
  namespace: string;
  name: string;
}

/** What reconcile needs of the hub: its HTTP API, nothing else. */
export interface HubMonitors {
  putMonitor(id: string, definition: MonitorDefinition): Promise<unknown>;
  deleteMonitor(id: string): Promise<void>;
  /** The hub's copy, compared with the spec on periodic passes; without it every pass puts the spec. */
  getMonitor?(id: string): Promise<Monitor | undefined>;
  /** The monitor's health figures; without it the status carries no health. */
  getMonitorMetrics?(id: string): Promise<MonitorHealthFigures | undefined>;
  /** Reads the latest failed run for its first error. */
  getRun?(id: string): Promise<Run | undefined>;
  /** Starts a run for `meerkat.dev/run-now`. */
  triggerRun?(id: string, request: { environment: string }): Promise<Run>;
}

/** What reconcile needs of the Kubernetes API. */
export interface MonitorResources {
  get(key: MonitorKey): Promise<MonitorResource | undefined>;
  setFinalizers(resource: MonitorResource, finalizers: string[]): Promise<MonitorResource>;
  /** Replaces the whole status, so fields absent from `status` are removed. */
  writeStatus(resource: MonitorResource, status: MonitorResourceStatus): Promise<void>;
}

export interface ReconcileDependencies {
  hub: HubMonitors;
  resources: MonitorResources;
  now: () => Date;
  log: Logger;
  /** Where sync failures and health changes are announced; none when absent. */
  events?: MonitorEvents;
  /** Shared outage bookkeeping; without it every unreachable hub is reported at once. */
  availability?: HubAvailability;
  /** Namespace to project mapping; without it any project is allowed. */
  projects?: ProjectPolicy;
  /** The URL of a run, for status.lastRunUrl. */
  runUrl?: (runId: string) => string;
  /** The console page of a hub monitor id, for status.consoleUrl. */
  monitorUrl?: (monitorId: string) => string;
  /** The resource a hub monitor id (a uid) belongs to, so a refusal naming another monitor names its resource. */
  resourceOfMonitorId?: (id: string) => MonitorKey | undefined;
}

/**
 * Resolves 'refresh' when the resource should be reconciled again later (to refresh its health, repair drift or
 * retry a refused spec), undefined when there is nothing more to do; rejects when it should be retried: with a
 * HubUnreachableError once the hub answers again, with anything else after a backoff.
 */
export async function reconcileMonitor(
  key: MonitorKey,
  deps: ReconcileDependencies,
): Promise<'refresh' | undefined> {
  const resource = await deps.resources.get(key);
  if (!resource) return undefined;
  if (resource.metadata.deletionTimestamp) {
    await reconcileDeletion(resource, deps);
    return undefined;
  }
  const outcome = await syncMonitor(resource, deps);
  let current = resource;
  const finalizers = resource.metadata.finalizers ?? [];
  if (outcome.hubHasMonitor && !finalizers.includes(CLEANUP_FINALIZER)) {
    current = await addFinalizer(resource, deps);
  }
  await writeStatusIfChanged(current, resource.status, outcome.status, deps);
  if (outcome.failure !== undefined) throw outcome.failure;
  return outcome.settled ? undefined : 'refresh';
}

/**
 * The finalizer goes on once the hub holds the monitor. When the resource was deleted in between (the API server
 * refuses new finalizers then), the hub monitor it just got is deleted here, since no later pass would know it.
 */
async function addFinalizer(
  resource: MonitorResource,
  deps: ReconcileDependencies,
): Promise<MonitorResource> {
  const finalizers = resource.metadata.finalizers ?? [];
  try {
    return await deps.resources.setFinalizers(resource, [...finalizers, CLEANUP_FINALIZER]);
  } catch (error) {
    const now = await deps.resources.get(keyOf(resource));
    if (now && now.metadata.uid === resource.metadata.uid && !now.metadata.deletionTimestamp) throw error;
    await deps.hub.deleteMonitor(resource.metadata.uid).catch((cleanup: unknown) => {
      if (!(cleanup instanceof HubRequestError && cleanup.status === 404)) throw cleanup;
    });
    throw error;
  }
}

/** Writes the status only when it says something new, and announces condition changes as Events. */
async function writeStatusIfChanged(
  resource: MonitorResource,
  before: MonitorResourceStatus | undefined,
  after: MonitorResourceStatus,
  deps: ReconcileDependencies,
): Promise<void> {
  if (sameStatus(before, after)) return;
  await deps.resources.writeStatus(resource, after);
  for (const type of ['Synced', 'Healthy', 'HubReachable'] as const) {
    const event = conditionEvent(type, before, after);
    if (event) await deps.events?.record(resource, event);
  }
}

/**
 * Deletes the hub monitor, then lets the resource go. While the hub refuses or cannot be reached, the resource
 * stays Terminating and says why (Synced=False, DeletionBlocked, one Event).
 */
async function reconcileDeletion(resource: MonitorResource, deps: ReconcileDependencies): Promise<void> {
  const finalizers = resource.metadata.finalizers ?? [];
  if (!finalizers.includes(CLEANUP_FINALIZER)) return;
  const id = resource.metadata.uid;
  try {
    await deps.hub.deleteMonitor(id);
    deps.availability?.reportAnswer();
  } catch (error) {
    if (!(error instanceof HubRequestError && error.status === 404)) {
      await blockDeletion(resource, error, deps);
      return;
    }
    deps.availability?.reportAnswer();
  }
  await deps.resources.setFinalizers(
    resource,
    finalizers.filter((finalizer) => finalizer !== CLEANUP_FINALIZER),
  );
  deps.log.info({ monitor: keyOf(resource), monitorId: id }, 'hub monitor deleted');
  await deps.events?.record(resource, {
    type: 'Normal',
    reason: 'Deleted',
    message: `the hub monitor ${id} was deleted; the resource goes`,
  });
}

async function blockDeletion(resource: MonitorResource, error: unknown, deps: ReconcileDependencies) {
  const unreachable = !isHubRejection(error);
  if (unreachable) deps.availability?.reportUnreachable(error);
  const previous = resource.status ?? {};
  const blocked: MonitorResourceStatus = {
    ...previous,
    conditions: setCondition(
      previous.conditions,
      {
        type: 'Synced',
        status: 'False',
        reason: 'DeletionBlocked',
        message:
          `the hub monitor ${resource.metadata.uid} could not be deleted (${describeHubFailure(error)}); ` +
          'the resource stays until it is, retried by the operator',
      },
      deps.now(),
    ),
  };
  const status = withReadiness(blocked, resource.metadata.generation, deps.now());
  await writeStatusIfChanged(resource, resource.status, status, deps);
  throw unreachable ? new HubUnreachableError(error) : error;
}

function keyOf(resource: MonitorResource): MonitorKey {
  return { namespace: resource.metadata.namespace, name: resource.metadata.name };
}
