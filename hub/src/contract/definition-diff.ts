import { appendPathKey } from './issue-path.js';

/** One changed field between two JSON documents, at a path like `nodes[1].method`. */
export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Field-level differences between two JSON values. Object key order does not matter; array order does
 * (node order is part of a definition). An absent key and `undefined` are the same.
 */
export function diffJson(before: unknown, after: unknown, path = ''): FieldChange[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => diffJson(before[key], after[key], appendPathKey(path, key)));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const changes: FieldChange[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i += 1) {
      changes.push(...diffJson(before[i], after[i], appendPathKey(path, i)));
    }
    return changes;
  }
  return Object.is(before, after) ? [] : [{ path, before, after }];
}
