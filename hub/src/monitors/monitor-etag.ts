import { createHash } from 'node:crypto';
import type { Monitor } from '../contract/monitor-definition.js';
import { PreconditionFailedError, ValidationError } from '../http/errors.js';

// HTTP conditional requests on one monitor (docs/adr/0046-monitor-etags.md): a GET answers the ETag of what it
// answered, a PUT or DELETE with If-Match goes ahead only while the stored monitor still has one of the tags.

/**
 * The strong ETag of a monitor as the API answers it: a digest of exactly that answer (definition, id and both
 * timestamps), so equal answers have equal tags and any change, `updatedAt` included, gives a new one. The answer
 * comes from the stored row through `monitorRowToMonitor`, whose key order is the same on every read.
 */
export function monitorEtag(monitor: Monitor): string {
  return `"${createHash('sha256').update(JSON.stringify(monitor)).digest('base64url').slice(0, 27)}"`;
}

/** An If-Match header read: any current monitor (`*`), or one of these strong tags. */
export type MonitorPrecondition = { anyVersion: true } | { etags: readonly string[] };

const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/** The If-Match header of a request, or undefined without one; a malformed header is a 400 naming it. */
export function readIfMatch(header: string | undefined): MonitorPrecondition | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return { anyVersion: true };
  const tags = header.split(',').map((tag) => tag.trim());
  const bad = tags.find((tag) => !ENTITY_TAG.test(tag));
  if (bad !== undefined)
    throw new ValidationError('invalid If-Match header: a list of quoted entity tags, or *', [
      { path: 'If-Match', message: `not an entity tag: ${JSON.stringify(bad.slice(0, 80))}` },
    ]);
  // If-Match compares strongly (RFC 9110 13.1.1): a weak tag never matches, so it is dropped.
  return { etags: tags.filter((tag) => !tag.startsWith('W/')) };
}

/** Throws 412 unless `current` (the stored monitor, locked by the caller's transaction) meets the precondition. */
export function checkPrecondition(
  precondition: MonitorPrecondition | undefined,
  id: string,
  current: Monitor | undefined,
): void {
  if (precondition === undefined) return;
  if (current === undefined)
    throw new PreconditionFailedError(`monitor ${id} does not exist; If-Match needs a current monitor`, [
      { path: 'If-Match', message: 'there is no current monitor to match' },
    ]);
  if ('anyVersion' in precondition) return;
  const etag = monitorEtag(current);
  if (!precondition.etags.includes(etag))
    throw new PreconditionFailedError(
      `monitor ${id} changed since that ETag was read; nothing was written (its ETag is now ${etag})`,
      [{ path: 'If-Match', message: `does not match the current ETag ${etag}` }],
    );
}
