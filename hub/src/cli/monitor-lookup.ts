import { CommandFailure, ExitCode } from './exit-codes.js';
import type { HubClient } from '../client/hub-client.js';
import type { Monitor } from '../contract/monitor-definition.js';
import { describeProblem, identityKey, readMonitorDocuments } from './monitor-documents.js';

/** Narrows a lookup by name, as `--project` and `--environment` do. */
export interface MonitorScope {
  project?: string;
  environment?: string;
}

/**
 * A monitor by id (`mon_…`) or by name. A name used in several projects or environments is refused with the
 * choices (exit 2), an unknown one is "not found" (exit 1).
 */
export async function findMonitor(hub: HubClient, reference: string, scope: MonitorScope): Promise<Monitor> {
  if (reference.startsWith('mon_')) {
    const monitor = await hub.getMonitor(reference);
    if (monitor === undefined) throw new CommandFailure(ExitCode.failed, `monitor ${reference} not found`);
    return monitor;
  }
  const named = (await hub.listMonitors(scope)).filter((m) => m.name === reference);
  const [monitor, ...others] = named;
  if (monitor === undefined) throw new CommandFailure(ExitCode.failed, `monitor "${reference}" not found`);
  if (others.length > 0) {
    const choices = named.map(identityKey).join(', ');
    throw new CommandFailure(
      ExitCode.usage,
      `monitor "${reference}" is ambiguous (${choices}): give --project and --environment, or the id`,
    );
  }
  return monitor;
}

/** Up to this many monitors are read one by one; more, from one listing (a request per 100 monitors). */
const READ_ONE_BY_ONE = 10;

/** The names of the monitors with these ids, for tables that would otherwise show ids only; a deleted one has none. */
export async function monitorNamesOf(hub: HubClient, ids: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)];
  if (wanted.length > READ_ONE_BY_ONE)
    return new Map((await hub.listMonitors({})).map((monitor) => [monitor.id, monitor.name]));
  const names = new Map<string, string>();
  for (const id of wanted) {
    const monitor = await hub.getMonitor(id);
    if (monitor !== undefined) names.set(id, monitor.name);
  }
  return names;
}

/**
 * The monitors the documents of these files define, as the hub has them, and the identities (`p/e/n`) of those it
 * does not have; and the names of the maintenance windows they define. An invalid file is printed and ends the command (exit 2).
 */
export async function monitorsDefinedIn(
  hub: HubClient,
  paths: string[],
): Promise<{ found: Monitor[]; missing: string[]; windowNames: string[] }> {
  const { documents, problems, windows } = await readMonitorDocuments(paths);
  if (problems.length > 0) {
    for (const p of problems) process.stderr.write(`${describeProblem(p)}\n`);
    throw new CommandFailure(ExitCode.usage);
  }
  const found: Monitor[] = [];
  const missing: string[] = [];
  for (const { id, definition } of documents) {
    const { project, environment, name } = definition;
    const monitor =
      id === undefined ? await hub.findMonitor(project, environment, name) : await hub.getMonitor(id);
    if (monitor === undefined) missing.push(identityKey(definition));
    else found.push(monitor);
  }
  return { found, missing, windowNames: windows.map(({ window }) => window.name) };
}
