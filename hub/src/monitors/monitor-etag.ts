import type { Monitor } from '../contract/monitor-definition.js';
import { checkIfMatch, strongEtag, type Precondition } from '../http/conditional-requests.js';

// HTTP conditional requests on one monitor (docs/adr/0046-monitor-etags.md): a GET answers the ETag of what it
// answered, a PUT or DELETE with If-Match goes ahead only while the stored monitor still has one of the tags.

/**
 * The strong ETag of a monitor as the API answers it: a digest of exactly that answer (definition, id and both
 * timestamps), so equal answers have equal tags and any change, `updatedAt` included, gives a new one. The answer
 * comes from the stored row through `monitorRowToMonitor`, whose key order is the same on every read.
 */
export function monitorEtag(monitor: Monitor): string {
  return strongEtag(monitor);
}

/** Throws 412 unless `current` (the stored monitor, locked by the caller's transaction) meets the precondition. */
export function checkPrecondition(
  precondition: Precondition | undefined,
  id: string,
  current: Monitor | undefined,
): void {
  checkIfMatch(precondition, { what: `monitor ${id}`, kind: 'monitor' }, current && monitorEtag(current));
}
