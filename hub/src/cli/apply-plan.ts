import { diffJson, type FieldChange } from '../contract/definition-diff.js';
import type { Monitor } from '../contract/monitor-definition.js';
import { definitionOf } from '../contract/stored-monitor.js';
import type { HubClient } from './hub-client.js';
import { identityKey, type MonitorDocument } from './monitor-documents.js';

export type PlannedAction =
  | { kind: 'create'; document: MonitorDocument }
  | { kind: 'change'; document: MonitorDocument; current: Monitor; changes: FieldChange[] }
  | { kind: 'unchanged'; document: MonitorDocument; current: Monitor }
  | { kind: 'prune'; current: Monitor };

/** Compares each document with what the hub has; reads only. */
export async function planApply(
  hub: HubClient,
  documents: MonitorDocument[],
  prune: { project: string } | undefined,
): Promise<PlannedAction[]> {
  const actions: PlannedAction[] = [];
  for (const document of documents) {
    const { project, environment, name } = document.definition;
    const current =
      document.id === undefined
        ? await hub.findMonitor(project, environment, name)
        : await hub.getMonitor(document.id);
    if (current === undefined) {
      actions.push({ kind: 'create', document });
      continue;
    }
    const changes = diffJson(definitionOf(current), document.definition);
    actions.push(
      changes.length === 0
        ? { kind: 'unchanged', document, current }
        : { kind: 'change', document, current, changes },
    );
  }
  if (prune !== undefined) {
    const defined = new Set(documents.map((d) => identityKey(d.definition)));
    for (const monitor of await hub.listMonitors({ project: prune.project })) {
      if (!defined.has(identityKey(monitor))) actions.push({ kind: 'prune', current: monitor });
    }
  }
  return actions;
}

function show(value: unknown): string {
  return value === undefined ? '(absent)' : JSON.stringify(value);
}

/** What a person reads: one line per monitor, and one indented line per changed field. */
export function describeAction(action: PlannedAction, outcome: string): string[] {
  switch (action.kind) {
    case 'create':
      return [`monitor ${identityKey(action.document.definition)} ${outcome}`];
    case 'unchanged':
      return [`monitor ${identityKey(action.document.definition)} unchanged`];
    case 'prune':
      return [`monitor ${identityKey(action.current)} ${outcome} (${action.current.id}, no longer defined)`];
    case 'change':
      return [
        `monitor ${identityKey(action.document.definition)} ${outcome} (${action.current.id})`,
        ...action.changes.map((c) => `    ${c.path}: ${show(c.before)} -> ${show(c.after)}`),
      ];
  }
}

/** Carries out one planned action; returns the word for what happened. */
export async function executeAction(hub: HubClient, action: PlannedAction): Promise<string> {
  switch (action.kind) {
    case 'create': {
      const { id, definition } = action.document;
      const monitor =
        id === undefined ? await hub.createMonitor(definition) : await hub.putMonitor(id, definition);
      return `created (${monitor.id})`;
    }
    case 'change':
      await hub.putMonitor(action.current.id, action.document.definition);
      return 'changed';
    case 'prune':
      await hub.deleteMonitor(action.current.id);
      return 'deleted';
    case 'unchanged':
      return 'unchanged';
  }
}
