import type { Monitor } from './monitor-definition.js';

/** The part of a stored monitor that its definition gives: everything but the server's fields. */
export function definitionOf(monitor: Monitor): Omit<Monitor, 'id' | 'createdAt' | 'updatedAt'> {
  const { id, createdAt, updatedAt, ...definition } = monitor;
  return definition;
}
