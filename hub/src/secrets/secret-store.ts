/** Whose secrets: every store call is scoped to the caller's organization and one environment. */
export interface SecretScope {
  readonly organizationId: string;
  readonly environment: string;
}

/** One string per scope, for maps keyed by scope. */
export function secretScopeKey({ organizationId, environment }: SecretScope): string {
  return `${organizationId}/${environment}`;
}

/** What resolving `$secret` references needs; a runner outside the hub may implement it over HTTP. */
export interface SecretReader {
  /**
   * The value of `name` in the scope's map, or undefined when the name (or the whole map) is absent.
   * `version` is `latest` (the default) or a version number of the map; a version the backend cannot read
   * throws SecretVersionNotFoundError or SecretVersionsUnsupportedError.
   */
  read(scope: SecretScope, name: string, version?: string): Promise<string | undefined>;
}

/**
 * One consolidated name -> value map per (organization, environment), held by the backend SECRETS_BACKEND names.
 * Writers to one map are serialized, so concurrent writes never lose one another's names. A write that would
 * make the map exceed 64 KiB throws PayloadTooLargeError and leaves the stored map unchanged.
 */
export interface SecretStore extends SecretReader {
  /** Sets `name` to `value`; `created` says whether the name was new. */
  put(scope: SecretScope, name: string, value: string): Promise<{ created: boolean }>;
  /** Removes `name`, deleting the stored map when it becomes empty; false when the name was not there. */
  remove(scope: SecretScope, name: string): Promise<boolean>;
}
