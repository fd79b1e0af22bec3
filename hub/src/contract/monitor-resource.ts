/** The `Monitor` custom resource of DESIGN.md: group meerkat.dev, version v1alpha1. */
export const MONITOR_API_VERSION = 'meerkat.dev/v1alpha1';
export const MONITOR_KIND = 'Monitor';

export interface MonitorResourceShape {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
}

/** Whether a document is a resource of `kind` (any apiVersion): Monitor, or MaintenanceWindow. */
export function isResourceOfKind(document: unknown, kind: string): document is MonitorResourceShape {
  return (
    typeof document === 'object' &&
    document !== null &&
    (document as { kind?: unknown }).kind === kind &&
    typeof (document as { apiVersion?: unknown }).apiVersion === 'string'
  );
}

export function isMonitorResource(document: unknown): document is MonitorResourceShape {
  return isResourceOfKind(document, MONITOR_KIND);
}

/**
 * A resource's spec is a monitor definition; `name` defaults to `metadata.name`, `project` to the namespace and
 * `labels` to `metadata.labels`, so a plain `kubectl apply` of a short resource still yields a complete definition.
 */
export function monitorResourceToDefinition(resource: MonitorResourceShape): Record<string, unknown> {
  const spec = resource.spec ?? {};
  return {
    ...spec,
    name: spec.name ?? resource.metadata?.name,
    project: spec.project ?? resource.metadata?.namespace,
    ...(spec.labels === undefined && resource.metadata?.labels !== undefined
      ? { labels: resource.metadata.labels }
      : {}),
  };
}
