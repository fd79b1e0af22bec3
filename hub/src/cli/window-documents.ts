import { windowChanges } from '../client/maintenance-window-diff.js';
import {
  maintenanceWindowDefinitionSchema,
  type MaintenanceWindowDefinition,
} from '../contract/maintenance-definition.js';
import {
  maintenanceWindowResourceToDefinition,
  type MaintenanceWindowResourceShape,
} from '../contract/maintenance-window-resource.js';
import type { HubClient } from '../client/hub-client.js';
import { toFieldIssues } from '../http/validation.js';
import type { DocumentProblem, DocumentSource } from './monitor-documents.js';

/** A `MaintenanceWindow` resource of an `apply -f` file: the same document the operator reconciles. */
export interface WindowDocument {
  source: DocumentSource;
  window: MaintenanceWindowDefinition;
}

export function parseWindowDocument(
  source: DocumentSource,
  raw: MaintenanceWindowResourceShape,
): WindowDocument | DocumentProblem[] {
  const parsed = maintenanceWindowDefinitionSchema.safeParse(maintenanceWindowResourceToDefinition(raw));
  if (parsed.success) return { source, window: parsed.data };
  return toFieldIssues(parsed.error).map((issue) => ({
    source,
    path: `spec.${issue.path}`,
    message: issue.message,
  }));
}

/**
 * Puts each window by name (`PUT /maintenance-windows/{name}` is idempotent) unless the hub has it already, and
 * says what happened; with `dryRun` it only says what would. Timestamps compare as instants, as the hub keeps them.
 */
export async function applyWindows(
  hub: HubClient,
  windows: WindowDocument[],
  dryRun: boolean,
): Promise<{ lines: string[]; changed: boolean }> {
  const lines: string[] = [];
  let changed = false;
  for (const { window } of windows) {
    const current = await hub.getMaintenanceWindow(window.name);
    const changes = current === undefined ? [] : windowChanges(current, window);
    const kind = current === undefined ? 'created' : changes.length > 0 ? 'changed' : 'unchanged';
    if (kind !== 'unchanged') changed = true;
    if (kind !== 'unchanged' && !dryRun) await hub.putMaintenanceWindow(window);
    lines.push(
      `maintenancewindow ${window.name} ${kind === 'unchanged' || !dryRun ? kind : `would be ${kind}`}`,
    );
    lines.push(
      ...changes.map((c) => `    ${c.path}: ${JSON.stringify(c.before)} -> ${JSON.stringify(c.after)}`),
    );
  }
  return { lines, changed };
}
