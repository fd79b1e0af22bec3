// Level-based reconcile of one MaintenanceWindow resource: put its definition in the hub under its hub name when the
// hub's copy differs (one GET per pass), say in the status whether it is in force and when it next starts, and
// delete the hub window before the resource goes (a finalizer, added once the hub holds the window).
import type { Logger } from 'pino';
import { HubRequestError } from '../../../hub/src/client/hub-client.js';
import type { MaintenanceWindowDefinition } from '../../../hub/src/contract/maintenance-definition.js';
import { windowChanges } from '../../../hub/src/client/maintenance-window-diff.js';
import type { MaintenanceWindow } from '../../../hub/src/client/hub-client.js';
import {
  describeHubFailure,
  HubUnreachableError,
  isHubRejection,
  type HubAvailability,
} from '../hub-availability.js';
import type { CustomResources } from '../kube-monitor-resources.js';
import { sameStatus, setCondition, toKubeTime } from '../monitor-conditions.js';
import { CLEANUP_FINALIZER } from '../monitor-resource-status.js';
import type { ProjectPolicy } from '../project-tenancy.js';
import { withReadiness } from '../readiness.js';
import type { MonitorKey } from '../reconcile-monitor.js';
import { DONE, reconcileCached, refreshAfter, type ReconcileResult } from '../reconcile-result.js';
import {
  hubWindowName,
  windowDefinitionOf,
  WindowSpecRefusal,
  type WindowResource,
  type WindowResourceStatus,
} from './window-resource.js';

/** What reconcile needs of the hub's maintenance-window API. */
export interface HubWindows {
  getMaintenanceWindow(name: string): Promise<MaintenanceWindow | undefined>;
  putMaintenanceWindow(definition: MaintenanceWindowDefinition): Promise<MaintenanceWindow>;
  deleteMaintenanceWindow(name: string): Promise<void>;
}

export interface WindowReconcileDependencies {
  hub: HubWindows;
  resources: CustomResources<WindowResource, WindowResourceStatus>;
  now: () => Date;
  log: Logger;
  availability: HubAvailability;
  projects: ProjectPolicy;
  /** A synced window is reconciled again this often; never when undefined. */
  refreshMs: number | undefined;
}

/**
 * Asks to come back after the refresh period while the window is synced (whether it is in force changes with
 * time, and the hub's copy may drift), not when only a change of the resource can help; rejects to be retried.
 */
export function reconcileWindow(
  key: MonitorKey,
  deps: WindowReconcileDependencies,
): Promise<ReconcileResult> {
  return reconcileCached(deps.resources.get(key), {
    deletion: (resource) => reconcileDeletion(resource, deps),
    sync: (resource) => reconcileSync(resource, deps),
  });
}

async function reconcileSync(
  resource: WindowResource,
  deps: WindowReconcileDependencies,
): Promise<ReconcileResult> {
  let definition: MaintenanceWindowDefinition;
  try {
    definition = windowDefinitionOf(resource, deps.projects);
  } catch (error) {
    if (!(error instanceof WindowSpecRefusal)) throw error;
    await writeStatus(resource, notSynced(resource, error.reason, error.message, deps), deps);
    return DONE;
  }
  let window: MaintenanceWindow;
  let put: boolean;
  try {
    ({ window, put } = await putIfChanged(definition, deps));
  } catch (error) {
    if (!isHubRejection(error)) throw reportUnreachable(error, deps);
    const message = describeHubFailure(error);
    await writeStatus(resource, notSynced(resource, 'HubRefused', message, deps), deps);
    return DONE;
  }
  let current = resource;
  if (!(resource.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER))
    current = await deps.resources.setFinalizers(resource, [
      ...(resource.metadata.finalizers ?? []),
      CLEANUP_FINALIZER,
    ]);
  await writeStatus(current, syncedStatus(resource, window, put, deps), deps);
  return refreshAfter(deps.refreshMs);
}

async function putIfChanged(
  definition: MaintenanceWindowDefinition,
  deps: WindowReconcileDependencies,
): Promise<{ window: MaintenanceWindow; put: boolean }> {
  const stored = await deps.hub.getMaintenanceWindow(definition.name);
  deps.availability.reportAnswer();
  if (stored !== undefined && windowChanges(stored, definition).length === 0)
    return { window: stored, put: false };
  const window = await deps.hub.putMaintenanceWindow(definition);
  deps.log.info({ window: definition.name, created: stored === undefined }, 'hub maintenance window put');
  return { window, put: true };
}

function reportUnreachable(error: unknown, deps: WindowReconcileDependencies): HubUnreachableError {
  deps.availability.reportUnreachable(error);
  return new HubUnreachableError(error);
}

function syncedStatus(
  resource: WindowResource,
  window: MaintenanceWindow,
  put: boolean,
  deps: WindowReconcileDependencies,
): WindowResourceStatus {
  const kubeTime = (at: string) => toKubeTime(new Date(at));
  const updatedAt = put ? undefined : resource.status?.updatedAt;
  return {
    observedGeneration: resource.metadata.generation ?? 0,
    windowName: window.name,
    updatedAt: updatedAt ?? toKubeTime(deps.now()),
    active: window.current !== null,
    ...(window.current === null ? {} : { currentEnd: kubeTime(window.current.end) }),
    ...(window.next === null ? {} : { nextStart: kubeTime(window.next.start) }),
    conditions: setCondition(
      resource.status?.conditions,
      {
        type: 'Synced',
        status: 'True',
        reason: 'Synced',
        message: `the hub holds maintenance window ${window.name}`,
        observedGeneration: resource.metadata.generation ?? 0,
      },
      deps.now(),
    ),
  };
}

/** The previous status with Synced=False and why; what the hub had stays described. */
function notSynced(
  resource: WindowResource,
  reason: string,
  message: string,
  deps: WindowReconcileDependencies,
): WindowResourceStatus {
  const previous = resource.status ?? {};
  return {
    ...previous,
    windowName: hubWindowName(resource),
    conditions: setCondition(
      previous.conditions,
      {
        type: 'Synced',
        status: 'False',
        reason,
        message,
        observedGeneration: resource.metadata.generation ?? 0,
      },
      deps.now(),
    ),
  };
}

/** Writes the status with its kstatus conditions (readiness.ts), only when it says something new. */
async function writeStatus(
  resource: WindowResource,
  status: WindowResourceStatus,
  deps: WindowReconcileDependencies,
): Promise<void> {
  const withReady = withReadiness(status, resource.metadata.generation ?? 0, deps.now());
  if (!sameStatus(resource.status, withReady)) await deps.resources.writeStatus(resource, withReady);
}

/** Deletes the hub window, then lets the resource go; while the hub refuses or is away it stays and says why. */
async function reconcileDeletion(resource: WindowResource, deps: WindowReconcileDependencies): Promise<void> {
  const finalizers = resource.metadata.finalizers ?? [];
  if (!finalizers.includes(CLEANUP_FINALIZER)) return;
  const name = hubWindowName(resource);
  try {
    await deps.hub.deleteMaintenanceWindow(name);
    deps.availability.reportAnswer();
  } catch (error) {
    if (!(error instanceof HubRequestError && error.status === 404)) {
      const message = `the hub window ${name} could not be deleted (${describeHubFailure(error)}); retried`;
      await writeStatus(resource, notSynced(resource, 'DeletionBlocked', message, deps), deps);
      throw isHubRejection(error) ? error : reportUnreachable(error, deps);
    }
  }
  await deps.resources.setFinalizers(
    resource,
    finalizers.filter((finalizer) => finalizer !== CLEANUP_FINALIZER),
  );
  deps.log.info({ window: name }, 'hub maintenance window deleted');
}
