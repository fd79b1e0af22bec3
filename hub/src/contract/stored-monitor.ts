import type { Monitor } from './monitor-definition.js';

/** The part of a stored monitor that its definition gives: everything but the server's fields. */
export function definitionOf(monitor: Monitor): Omit<Monitor, 'id' | 'createdAt' | 'updatedAt'> {
  const { id, createdAt, updatedAt, ...definition } = monitor;
  return definition;
}

/** Where a monitor runs: its locations, or the one `default` location when it names none. */
export function monitorLocations(monitor: Pick<Monitor, 'locations'>): string[] {
  return monitor.locations ?? ['default'];
}
