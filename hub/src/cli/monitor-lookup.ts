import { CommandFailure, ExitCode } from './exit-codes.js';
import type { HubClient } from '../client/hub-client.js';
import type { Monitor } from '../contract/monitor-definition.js';
import { identityKey } from './monitor-documents.js';

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
