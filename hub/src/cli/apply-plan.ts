import { diffJson, type FieldChange } from '../contract/definition-diff.js';
import type { Monitor, MonitorDefinition } from '../contract/monitor-definition.js';
import type { HubClient } from './hub-client.js';
import type { MonitorDocument } from './monitor-documents.js';

export type PlannedAction =
  | { kind: 'create'; document: MonitorDocument }
  | { kind: 'change'; document: MonitorDocument; current: Monitor; changes: FieldChange[] }
  | { kind: 'unchanged'; document: MonitorDocument; current: Monitor }
  | { kind: 'prune'; current: Monitor };

/** The part of a stored monitor that a document defines: everything but the server's fields. */
function definitionOf(monitor: Monitor): Omit<Monitor, 'id' | 'createdAt' | 'updatedAt'> {
  const { id, createdAt, updatedAt, ...definition } = monitor;
  return definition;
}

export function identityKey(monitor: Pick<MonitorDefinition, 'project' | 'environment' | 'name'>): string {
  return `${monitor.project}/${monitor.environment}/${monitor.name}`;
}

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
