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
import type { FieldChange } from '../contract/definition-diff.js';
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

/** What putting a window would do: create it, change these fields, or nothing. */
export interface WindowPlan {
  window: MaintenanceWindowDefinition;
  kind: 'created' | 'changed' | 'unchanged';
  changes: FieldChange[];
}

/** Compares each window with what the hub has; times compare as instants, as the hub keeps them. */
export async function planWindows(hub: HubClient, windows: WindowDocument[]): Promise<WindowPlan[]> {
  const plans: WindowPlan[] = [];
  for (const { window } of windows) {
    const current = await hub.getMaintenanceWindow(window.name);
    const changes = current === undefined ? [] : windowChanges(current, window);
    const kind = current === undefined ? 'created' : changes.length > 0 ? 'changed' : 'unchanged';
    plans.push({ window, kind, changes });
  }
  return plans;
}

/** A plan's lines: `maintenancewindow NAME <outcome>`, then each changed field. */
export const describeWindowPlan = (plan: WindowPlan, outcome: string): string[] => [
  `maintenancewindow ${plan.window.name} ${outcome}`,
  ...plan.changes.map((c) => `    ${c.path}: ${JSON.stringify(c.before)} -> ${JSON.stringify(c.after)}`),
];

/**
 * Puts each window by name (`PUT /maintenance-windows/{name}` is idempotent) unless the hub has it already, and
 * says what happened; with `dryRun` it only says what would.
 */
export async function applyWindows(
  hub: HubClient,
  windows: WindowDocument[],
  dryRun: boolean,
): Promise<{ lines: string[]; changed: boolean }> {
  const lines: string[] = [];
  let changed = false;
  for (const plan of await planWindows(hub, windows)) {
    if (plan.kind !== 'unchanged') changed = true;
    if (plan.kind !== 'unchanged' && !dryRun) await hub.putMaintenanceWindow(plan.window);
    const outcome = plan.kind === 'unchanged' || !dryRun ? plan.kind : `would be ${plan.kind}`;
    lines.push(...describeWindowPlan(plan, outcome));
  }
  return { lines, changed };
}
