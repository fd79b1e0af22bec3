import { diffJson, type FieldChange } from '../contract/definition-diff.js';
import type { Monitor } from '../contract/monitor-definition.js';
import { definitionOf } from '../contract/stored-monitor.js';
import { HubRequestError, type HubClient } from '../client/hub-client.js';
import { identityKey, type MonitorDocument } from './monitor-documents.js';

export type PlannedAction =
  | { kind: 'create'; document: MonitorDocument }
  | { kind: 'change'; document: MonitorDocument; current: Monitor; changes: FieldChange[] }
  | { kind: 'unchanged'; document: MonitorDocument; current: Monitor }
  | { kind: 'prune'; current: Monitor };

/**
 * Above this many documents, one listing of the organization's monitors (a request per 100) costs fewer requests
 * than a lookup per document: `get monitors -o yaml | apply -f -` at 1,000 monitors.
 */
const LIST_ONCE_ABOVE = 10;
type Lookup = (document: MonitorDocument) => Promise<Monitor | undefined>;

async function lookupFor(hub: HubClient, documents: MonitorDocument[]): Promise<Lookup> {
  if (documents.length <= LIST_ONCE_ABOVE)
    return ({ id, definition: { project, environment, name } }) =>
      id === undefined ? hub.findMonitor(project, environment, name) : hub.getMonitor(id);
  const all = await hub.listMonitors({});
  const byId = new Map(all.map((m) => [m.id, m]));
  const byIdentity = new Map(all.map((m) => [identityKey(m), m]));
  return ({ id, definition }) =>
    Promise.resolve(id === undefined ? byIdentity.get(identityKey(definition)) : byId.get(id));
}

/** Compares each document with what the hub has; reads only. */
export async function planApply(
  hub: HubClient,
  documents: MonitorDocument[],
  prune: { project: string } | undefined,
): Promise<PlannedAction[]> {
  const actions: PlannedAction[] = [];
  const lookup = await lookupFor(hub, documents);
  for (const document of documents) {
    const current = await lookup(document);
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

/** What the hub said of one planned write, asked with `dryRun=true`: what it would store, or why it refuses. */
export type HubVerdict =
  { action: PlannedAction; wouldStore: Monitor } | { action: PlannedAction; refusal: HubRequestError };

/**
 * Asks the hub to check every create and change without keeping anything (`?dryRun=true`), so that a document the
 * hub refuses (an unknown location, an integration that does not exist, a name clash) is found before any write.
 * Errors other than a refusal of the document (unreachable, 401, 5xx) end the command as they are.
 */
export async function checkPlanWithHub(hub: HubClient, plan: PlannedAction[]): Promise<HubVerdict[]> {
  const verdicts: HubVerdict[] = [];
  for (const action of plan) {
    if (action.kind !== 'create' && action.kind !== 'change') continue;
    try {
      const { id, definition } = action.document;
      const wouldStore =
        action.kind === 'change'
          ? await hub.putMonitor(action.current.id, definition, { dryRun: true })
          : id === undefined
            ? await hub.createMonitor(definition, { dryRun: true })
            : await hub.putMonitor(id, definition, { dryRun: true });
      verdicts.push({ action, wouldStore });
    } catch (error) {
      if (!(error instanceof HubRequestError) || ![400, 409, 413, 422].includes(error.status)) throw error;
      verdicts.push({ action, refusal: error });
    }
  }
  return verdicts;
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
