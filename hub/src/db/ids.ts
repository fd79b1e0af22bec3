import { randomUUID } from 'node:crypto';

/** Server-chosen ids: a short type prefix and a UUID, URL-safe and at most 64 characters. */
export function newId(
  prefix: 'con' | 'int' | 'run' | 'grp' | 'rul' | 'evt' | 'oat' | 'mon' | 'sil' | 'mnt',
): string {
  return `${prefix}_${randomUUID()}`;
}
