// Level-based reconcile of one Monitor resource: read it, make the hub match it, record the outcome in its status.
// The hub monitor's id is the resource's uid, so repeating a reconcile (after a lost status write, a restart, a
// relist) updates the same monitor and never creates a second one.
import type { Logger } from 'pino';
import { monitorResourceToDefinition } from '../../hub/src/contract/monitor-resource.js';
import type { MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import { HubRequestError } from '../../hub/src/cli/hub-client.js';
import { setCondition } from './monitor-conditions.js';
import type { MonitorEvents } from './monitor-events.js';
import { conditionEvent, withHealth, type MonitorHealthFigures } from './monitor-health.js';
import {
  CLEANUP_FINALIZER,
  type MonitorResource,
  type MonitorResourceStatus,
} from './monitor-resource-status.js';

export interface MonitorKey {
  namespace: string;
  name: string;
}

/** What reconcile needs of the hub: its HTTP API, nothing else. */
export interface HubMonitors {
  putMonitor(id: string, definition: MonitorDefinition): Promise<unknown>;
  deleteMonitor(id: string): Promise<void>;
  /** The monitor's health figures; without it the status carries no health. */
  getMonitorMetrics?(id: string): Promise<MonitorHealthFigures | undefined>;
}

/** What reconcile needs of the Kubernetes API. */
export interface MonitorResources {
  get(key: MonitorKey): Promise<MonitorResource | undefined>;
  setFinalizers(resource: MonitorResource, finalizers: string[]): Promise<MonitorResource>;
  writeStatus(resource: MonitorResource, status: MonitorResourceStatus): Promise<void>;
}

export interface ReconcileDependencies {
  hub: HubMonitors;
  resources: MonitorResources;
  now: () => Date;
  log: Logger;
  /** Where sync failures and health changes are announced; none when absent. */
  events?: MonitorEvents;
}

/** The hub refused the definition: the spec must change before a retry can help, so none is scheduled. */
const isRejection = (error: unknown) =>
  error instanceof HubRequestError && error.status >= 400 && error.status < 500 && error.status !== 429;

/**
 * Resolves 'refresh' when the resource is in sync (come back later to refresh its health and repair drift),
 * undefined when there is nothing more to do; rejects when it should be retried with backoff.
 */
export async function reconcileMonitor(
  key: MonitorKey,
  deps: ReconcileDependencies,
): Promise<'refresh' | undefined> {
  const resource = await deps.resources.get(key);
  if (!resource) return undefined;
  const finalizers = resource.metadata.finalizers ?? [];

  if (resource.metadata.deletionTimestamp) {
    if (!finalizers.includes(CLEANUP_FINALIZER)) return undefined;
    await deleteHubMonitor(resource.metadata.uid, deps.hub);
    await deps.resources.setFinalizers(
      resource,
      finalizers.filter((finalizer) => finalizer !== CLEANUP_FINALIZER),
    );
    deps.log.info({ monitor: key, monitorId: resource.metadata.uid }, 'hub monitor deleted');
    return undefined;
  }

  // The finalizer goes on before the hub monitor exists, so no hub monitor can outlive its resource.
  const current = finalizers.includes(CLEANUP_FINALIZER)
    ? resource
    : await deps.resources.setFinalizers(resource, [...finalizers, CLEANUP_FINALIZER]);

  let failure: unknown;
  try {
    const definition = monitorResourceToDefinition(current) as unknown as MonitorDefinition;
    await deps.hub.putMonitor(current.metadata.uid, definition);
  } catch (error) {
    failure = error;
  }
  let status = statusAfterSync(current, failure, deps.now());
  const figures = failure === undefined ? await healthFigures(current.metadata.uid, deps) : undefined;
  if (figures) status = withHealth(status, figures, current.metadata.generation, deps.now());
  if (JSON.stringify(status) !== JSON.stringify(current.status ?? {})) {
    await deps.resources.writeStatus(current, status);
    for (const type of ['Synced', 'Healthy'] as const) {
      const event = conditionEvent(type, current.status, status);
      if (event) await deps.events?.record(current, event);
    }
  }
  if (failure !== undefined && !isRejection(failure)) {
    throw failure instanceof Error ? failure : new Error('the hub call failed', { cause: failure });
  }
  return failure === undefined ? 'refresh' : undefined;
}

/** Health is a view, not the sync: when the metrics cannot be read, the last figures stay and the sync stands. */
async function healthFigures(id: string, deps: ReconcileDependencies) {
  try {
    return await deps.hub.getMonitorMetrics?.(id);
  } catch (error) {
    deps.log.warn({ err: error, monitorId: id }, 'could not read the monitor’s metrics');
    return undefined;
  }
}

async function deleteHubMonitor(id: string, hub: HubMonitors): Promise<void> {
  try {
    await hub.deleteMonitor(id);
  } catch (error) {
    if (error instanceof HubRequestError && error.status === 404) return;
    throw error;
  }
}

function statusAfterSync(resource: MonitorResource, failure: unknown, now: Date): MonitorResourceStatus {
  const generation = resource.metadata.generation;
  const previous = resource.status ?? {};
  if (failure === undefined) {
    return {
      ...previous,
      observedGeneration: generation,
      monitorId: resource.metadata.uid,
      conditions: setCondition(
        previous.conditions,
        {
          type: 'Synced',
          status: 'True',
          observedGeneration: generation,
          reason: 'Synced',
          message: 'the spec is in the hub',
        },
        now,
      ),
    };
  }
  const rejected = isRejection(failure);
  return {
    ...previous,
    observedGeneration: generation,
    conditions: setCondition(
      previous.conditions,
      {
        type: 'Synced',
        status: 'False',
        observedGeneration: generation,
        reason: rejected ? 'HubRejectedSpec' : 'HubUnreachable',
        message: describeFailure(failure),
      },
      now,
    ),
  };
}

/** The hub's own words, with each failing field, so `kubectl describe` shows what to fix. */
function describeFailure(error: unknown): string {
  if (error instanceof HubRequestError) {
    // The hub's message often already names the first failing field; say each one once.
    const fields = error.details
      .map((detail) => `${detail.path}: ${detail.message}`)
      .filter((field, index, all) => !error.message.includes(field) && all.indexOf(field) === index);
    return [`the hub answered ${error.status}: ${error.message}`, ...fields].join('; ');
  }
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return `${error instanceof Error ? error.message : String(error)}${cause ? ` (${cause})` : ''}`;
}
