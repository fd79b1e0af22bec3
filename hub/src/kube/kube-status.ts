// Shared by the hub's job locations and the operator: both tell Kubernetes API answers apart by status (404, 409).

/** The HTTP status of a failed @kubernetes/client-node call (its ApiException's `code`); else undefined. */
export function kubeStatusOf(error: unknown): number | undefined {
  const code: unknown =
    typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'number' ? code : undefined;
}
