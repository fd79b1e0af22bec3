import { isResourceOfKind, MONITOR_API_VERSION, type MonitorResourceShape } from './monitor-resource.js';

/** The `MaintenanceWindow` custom resource: the same group and version as `Monitor`, a window definition as spec. */
export const MAINTENANCE_WINDOW_API_VERSION = MONITOR_API_VERSION;
export const MAINTENANCE_WINDOW_KIND = 'MaintenanceWindow';

/** The same shape as a Monitor resource's: apiVersion, kind, metadata and spec. */
export type MaintenanceWindowResourceShape = MonitorResourceShape;

export function isMaintenanceWindowResource(document: unknown): document is MaintenanceWindowResourceShape {
  return isResourceOfKind(document, MAINTENANCE_WINDOW_KIND);
}

/** The spec is a window definition whose `name` defaults to `metadata.name`, as a Monitor's does. */
export function maintenanceWindowResourceToDefinition(
  resource: MaintenanceWindowResourceShape,
): Record<string, unknown> {
  const spec = resource.spec ?? {};
  return { ...spec, name: spec.name ?? resource.metadata?.name };
}
