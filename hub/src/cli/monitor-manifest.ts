import { MONITOR_API_VERSION, MONITOR_KIND } from '../contract/monitor-resource.js';
import { monitorDefinitionSchema, type Monitor } from '../contract/monitor-definition.js';

// The definition's own field order (project, name, version, ...), not the order the hub's storage returns keys in.
const SPEC_ORDER = Object.keys(monitorDefinitionSchema.shape);
const bySpecOrder = ([a]: [string, unknown], [b]: [string, unknown]) =>
  (SPEC_ORDER.indexOf(a) >>> 0) - (SPEC_ORDER.indexOf(b) >>> 0);

/**
 * A stored monitor as `get -o yaml|json` prints it: a Monitor resource whose `spec` is the definition, with the
 * hub's own fields where kubectl keeps server-set ones (`metadata.creationTimestamp`, `status`). `apply -f` reads
 * only `spec` (and `metadata.name`/`namespace` as defaults), so what `get` prints applies back unchanged (ADR 0031).
 */
export function monitorManifest(monitor: Monitor) {
  // Labels where kubectl keeps them; `apply` reads them back from there (contract/monitor-resource.ts).
  const { id, createdAt, updatedAt, labels, ...spec } = monitor;
  return {
    apiVersion: MONITOR_API_VERSION,
    kind: MONITOR_KIND,
    metadata: {
      name: monitor.name,
      namespace: monitor.project,
      ...(labels === undefined ? {} : { labels }),
      creationTimestamp: createdAt,
    },
    spec: Object.fromEntries(Object.entries(spec).sort(bySpecOrder)),
    status: { monitorId: id, updatedAt },
  };
}

/** kubectl's form of several objects in one document, which `apply -f` also takes. */
export const LIST_KIND = 'List';
export function listManifest(items: unknown[]) {
  return { apiVersion: 'v1', kind: LIST_KIND, items };
}
