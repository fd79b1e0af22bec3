import { createHash } from 'node:crypto';
import { PreconditionFailedError, ValidationError } from './errors.js';

// HTTP conditional requests (RFC 9110 13.1.1, docs/adr/0046-monitor-etags.md): a GET answers a strong ETag of the
// version it answered, and a PUT or DELETE with If-Match goes ahead only while the stored version still has one of
// the tags. Used by monitors and by the admin API's quota overrides.

/**
 * A strong ETag: the first 27 characters (160 bits) of the base64url SHA-256 of the JSON of `version`. Equal
 * versions give equal tags, so the caller must build `version` with the same key order on every read.
 */
export function strongEtag(version: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(version)).digest('base64url').slice(0, 27)}"`;
}

/** An If-Match header read: any current version (`*`), or one of these strong tags. */
export type Precondition = { anyVersion: true } | { etags: readonly string[] };

const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/** The If-Match header of a request, or undefined without one; a malformed header is a 400 naming it. */
export function readIfMatch(header: string | undefined): Precondition | undefined {
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

/**
 * Throws 412 unless the current version, read under the caller's lock, meets the precondition. `what` names the
 * resource in the message ("monitor m-1"), `kind` its kind; `currentEtag` is undefined when there is no current
 * version (If-Match, `*` included, is then false).
 */
export function checkIfMatch(
  precondition: Precondition | undefined,
  resource: { what: string; kind: string },
  currentEtag: string | undefined,
): void {
  if (precondition === undefined) return;
  if (currentEtag === undefined)
    throw new PreconditionFailedError(
      `${resource.what} does not exist; If-Match needs a current ${resource.kind}`,
      [{ path: 'If-Match', message: `there is no current ${resource.kind} to match` }],
    );
  if ('anyVersion' in precondition) return;
  if (!precondition.etags.includes(currentEtag))
    throw new PreconditionFailedError(
      `${resource.what} changed since that ETag was read; nothing was written (its ETag is now ${currentEtag})`,
      [{ path: 'If-Match', message: `does not match the current ETag ${currentEtag}` }],
    );
}
