// Level-based reconcile of one Monitor resource: read it from the informer's cache, make the hub match it, write
// the status desiredStatus() computes from what the pass observed (ADR 0043).
// The hub monitor's id is the resource's uid, so repeating a reconcile (after a lost status write, a restart, a
// relist) updates the same monitor and never creates a second one. Sync is edge-driven: the spec is put when the
// generation the hub accepted is not the resource's, when `meerkat.dev/sync-now` asks, or when the hub's copy
// differs (one GET); a periodic pass otherwise only reads health. The status is written only when it changed.
import type { Logger } from 'pino';
import type { MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import type { Monitor } from '../../hub/src/contract/monitor-definition.js';
import { MONITOR_API_VERSION } from '../../hub/src/contract/monitor-resource.js';
import type { Run } from '../../hub/src/contract/run.js';
import { HubRequestError, type MonitorHealthRow } from '../../hub/src/client/hub-client.js';
import type { FleetHealth } from './fleet-health.js';
import {
  describeHubFailure,
  HubUnreachableError,
  isHubRejection,
  type HubAvailability,
} from './hub-availability.js';
import { desiredStatus } from './desired-status.js';
import { sameStatus } from './monitor-conditions.js';
import type { MonitorEvents } from './monitor-events.js';
import { conditionEvent, type MonitorHealthFigures } from './monitor-health.js';
import {
  CLEANUP_FINALIZER,
  type MonitorResource,
  type MonitorResourceStatus,
} from './monitor-resource-status.js';
import type { CustomResources } from './kube-monitor-resources.js';
import { syncMonitor } from './monitor-sync.js';
import type { HubCopies } from './hub-copies.js';
import type { ProjectPolicy } from './project-tenancy.js';
import { DONE, reconcileCached, refreshAfter, type ReconcileResult } from './reconcile-result.js';

export interface MonitorKey {
  namespace: string;
  name: string;
}

/** What reconcile needs of the hub: its HTTP API, nothing else. */
export interface HubMonitors {
  /** The monitor as the hub stored it: the copy the next pass compares with (hub-copies.ts, ADR 0070). */
  putMonitor(id: string, definition: MonitorDefinition): Promise<Monitor>;
  /** Up to 100 PUTs in one request (`POST /monitor/bulk`); startOperator batches putMonitor through it (ADR 0054). */
  putMonitors(items: Array<{ id: string; definition: MonitorDefinition }>): Promise<Array<Monitor | Error>>;
  deleteMonitor(id: string): Promise<void>;
  /** The hub's copy, compared with the spec on a pass when neither the last listing nor a PUT's answer knows it. */
  getMonitor(id: string): Promise<Monitor | undefined>;
  /** Every monitor of the organization, a request per 100 (hub-copies.ts): at start and each planned resync. */
  listMonitors(filter: Record<string, never>): Promise<Monitor[]>;
  /** The monitor's health figures: read only for the latest run's id once the fleet's row says health moved. */
  getMonitorMetrics(id: string): Promise<MonitorHealthFigures | undefined>;
  /** Every monitor's health row, a request per 100 monitors (fleet-health.ts). */
  listMonitorHealth(): Promise<MonitorHealthRow[]>;
  /** Reads the latest failed run for its first error. */
  getRun(id: string): Promise<Run | undefined>;
  /** Starts a run for `meerkat.dev/run-now`. */
  triggerRun(id: string, request: { environment: string }): Promise<Run>;
}

/**
 * What reconcile needs of the Kubernetes API: `get` reads the informer's cache (the lister, no API call),
 * `getLatest` the API server (only where the cache may lag behind and that matters), `writeStatus` replaces the
 * whole status, so fields absent from it are removed.
 */
export type MonitorResources = CustomResources<MonitorResource, MonitorResourceStatus>;

/** Every port is required: tests pass their own (test/operator/reconcile-monitor.test.ts's setUp), never none. */
export interface ReconcileDependencies {
  hub: HubMonitors;
  resources: MonitorResources;
  now: () => Date;
  log: Logger;
  /** Where sync failures and health changes are announced. */
  events: MonitorEvents;
  /** Shared outage bookkeeping: an unreachable hub is reported once past its grace period. */
  availability: HubAvailability;
  /** Namespace to project mapping (`parseProjectPolicy('*=*')` allows any project). */
  projects: ProjectPolicy;
  /** The URL of a run, for status.lastRunUrl. */
  runUrl: (runId: string) => string;
  /** The console page of a hub monitor id, for status.consoleUrl. */
  monitorUrl: (monitorId: string) => string;
  /** The resource a hub monitor id (a uid) belongs to, so a refusal naming another monitor names its resource. */
  resourceOfMonitorId: (id: string) => MonitorKey | undefined;
  /** The last fleet sweep's health rows: a Monitor's figures without a request of its own (ADR 0049). */
  fleetHealth: FleetHealth;
  /** The hub's copies as last listed: a pass compares with them without a request of its own (ADR 0049). */
  hubCopies: HubCopies;
  /** A resource the hub refused is reconciled again this often; never when undefined. */
  refreshMs: number | undefined;
  /** OPERATOR_CLUSTER_NAME: the `meerkat.dev/cluster` label of every monitor this operator puts (ADR 0065). */
  clusterName: string;
  /** The uids of Monitors deleted under a key, whose hub monitors go before the key's next sync (ADR 0065). */
  departed: DepartedMonitors;
}

/** Hub monitors to delete because their Monitor was deleted, by the key the Monitor had. */
export interface DepartedMonitors {
  /** Takes the uids recorded under the key; `restore` puts back the ones not yet deleted. */
  take(key: MonitorKey): string[];
  restore(key: MonitorKey, uids: string[]): void;
}

/**
 * Asks to come back after the refresh period while the hub refuses the resource (to retry), not when it is synced
 * (the fleet sweep and the resync bring it back) or only a change of the resource can help; rejects when it should be
 * retried: with a HubUnreachableError once the hub answers again, with anything else after a backoff.
 */
export async function reconcileMonitor(
  key: MonitorKey,
  deps: ReconcileDependencies,
): Promise<ReconcileResult> {
  // Before the key's current resource: one re-created under the same name must not clash with its predecessor.
  await deleteDeparted(key, deps);
  return reconcileCached(deps.resources.get(key), {
    deletion: (resource) => reconcileDeletion(resource, deps),
    sync: (resource) => reconcileSync(resource, deps),
  });
}

/**
 * Deletes the hub monitors of Monitors deleted under this key; what fails waits for the queue's retry. The API server
 * is asked first (one GET): a cache that relisted from a stale list reports a Monitor gone that is not, and its hub
 * monitor must stay (ADR 0065).
 */
async function deleteDeparted(key: MonitorKey, deps: ReconcileDependencies): Promise<void> {
  const uids = deps.departed.take(key);
  if (uids.length === 0) return;
  let present: string | undefined;
  try {
    present = (await deps.resources.getLatest(key))?.metadata.uid;
  } catch (error) {
    deps.departed.restore(key, uids);
    throw error;
  }
  for (const [index, uid] of uids.entries()) {
    if (uid === present) continue;
    try {
      await deps.hub.deleteMonitor(uid);
      deps.availability.reportAnswer();
      deps.log.info({ monitor: key, monitorId: uid }, 'hub monitor deleted');
      // The resource is gone, but `kubectl get events` still lists an Event about it, as it did when a finalizer
      // held the resource until this deletion (docs/operator.md).
      await deps.events.record(
        { apiVersion: MONITOR_API_VERSION, kind: 'Monitor', metadata: { ...key, uid } },
        { type: 'Normal', reason: 'Deleted', message: `the hub monitor ${uid} was deleted with its Monitor` },
      );
    } catch (error) {
      if (error instanceof HubRequestError && error.status === 404) continue;
      deps.departed.restore(key, uids.slice(index));
      if (isHubRejection(error)) throw error;
      deps.availability.reportUnreachable(error);
      throw new HubUnreachableError(error);
    }
  }
}

async function reconcileSync(
  resource: MonitorResource,
  deps: ReconcileDependencies,
): Promise<ReconcileResult> {
  const { observation, failure } = await syncMonitor(resource, deps);
  // No finalizer (ADR 0065): the hub monitor goes at the Monitor's DELETED event, or at the next resync's sweep.
  const status = desiredStatus({ resource, observation, now: deps.now() });
  // Before the status write, which moves the resourceVersion this compare-and-swap names.
  if (observation.kind === 'synced') await dropLegacyFinalizer(resource, deps);
  await writeStatusIfChanged(resource, resource.status, status, deps);
  if (failure !== undefined) throw failure;
  // Synced: the fleet sweep brings health changes and the resync drift (ADR 0049), no timer per Monitor. A
  // namespace refused its project: only a change of the resource (or of the operator's settings) helps.
  const retried = observation.kind === 'refused' && observation.reason === 'HubRejectedSpec';
  return retried ? refreshAfter(deps.refreshMs) : DONE;
}

/**
 * Removes the finalizer an operator before ADR 0065 added, once the hub holds this pass's definition (put, or
 * compared equal), which carries this operator's labels: from then on the sweep finds the hub monitor when the
 * Monitor goes, and a deletion no longer waits for a running operator. Once per Monitor, at the upgrade.
 */
async function dropLegacyFinalizer(resource: MonitorResource, deps: ReconcileDependencies): Promise<void> {
  const finalizers = resource.metadata.finalizers ?? [];
  if (!finalizers.includes(CLEANUP_FINALIZER) || resource.metadata.deletionTimestamp) return;
  await deps.resources.setFinalizers(
    resource,
    finalizers.filter((finalizer) => finalizer !== CLEANUP_FINALIZER),
  );
  deps.log.info({ monitor: keyOf(resource) }, 'the finalizer of an earlier operator removed');
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
    if (event) await deps.events.record(resource, event);
  }
}

/**
 * A Monitor that still carries the finalizer of operators before ADR 0065: deletes the hub monitor, then lets the
 * resource go. While the hub refuses or cannot be reached, the resource stays Terminating and says why
 * (Synced=False, DeletionBlocked, one Event). A Monitor without it needs nothing here: its DELETED event does it.
 */
async function reconcileDeletion(resource: MonitorResource, deps: ReconcileDependencies): Promise<void> {
  const finalizers = resource.metadata.finalizers ?? [];
  if (!finalizers.includes(CLEANUP_FINALIZER)) return;
  const id = resource.metadata.uid;
  try {
    await deps.hub.deleteMonitor(id);
    deps.availability.reportAnswer();
  } catch (error) {
    if (!(error instanceof HubRequestError && error.status === 404)) {
      await blockDeletion(resource, error, deps);
      return;
    }
    deps.availability.reportAnswer();
  }
  await deps.resources.setFinalizers(
    resource,
    finalizers.filter((finalizer) => finalizer !== CLEANUP_FINALIZER),
  );
  deps.log.info({ monitor: keyOf(resource), monitorId: id }, 'hub monitor deleted');
  await deps.events.record(resource, {
    type: 'Normal',
    reason: 'Deleted',
    message: `the hub monitor ${id} was deleted; the resource goes`,
  });
}

async function blockDeletion(resource: MonitorResource, error: unknown, deps: ReconcileDependencies) {
  const unreachable = !isHubRejection(error);
  if (unreachable) deps.availability.reportUnreachable(error);
  const message =
    `the hub monitor ${resource.metadata.uid} could not be deleted (${describeHubFailure(error)}); ` +
    'the resource stays until it is, retried by the operator';
  const status = desiredStatus({
    resource,
    observation: { kind: 'deletionBlocked', message },
    now: deps.now(),
  });
  await writeStatusIfChanged(resource, resource.status, status, deps);
  throw unreachable ? new HubUnreachableError(error) : error;
}

function keyOf(resource: MonitorResource): MonitorKey {
  return { namespace: resource.metadata.namespace, name: resource.metadata.name };
}
