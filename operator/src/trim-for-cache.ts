// What the informer's cache need not hold of an object (issue 39: the operator's memory at fleet size). The API server
// sends each Monitor with `metadata.managedFields` (a field set per writer: the user's, the operator's finalizer and
// its status, about as large as the rest of the object) and, after `kubectl apply`, the
// `kubectl.kubernetes.io/last-applied-configuration` annotation (the spec again, as a string). Nothing in the
// operator reads either, and it writes only with patches of its own fields, so dropping them changes no request.

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

interface Bookkept {
  metadata?: { managedFields?: unknown; annotations?: Record<string, string> | undefined };
}

/** The object without its managed fields and kubectl's last-applied copy; changed in place, and returned. */
export function trimForCache<T>(object: T): T {
  const metadata = (object as Bookkept | null | undefined)?.metadata;
  if (!metadata) return object;
  delete metadata.managedFields;
  if (metadata.annotations?.[LAST_APPLIED] !== undefined) {
    const { [LAST_APPLIED]: _lastApplied, ...annotations } = metadata.annotations;
    metadata.annotations = annotations;
  }
  return object;
}
