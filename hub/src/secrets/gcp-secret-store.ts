import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { systemClock, type Clock } from '../system/clock.js';
import {
  createSecretManagerCaller,
  defaultRetryPolicy,
  GrpcCode,
  grpcCodeOf,
  type RetryPolicy,
} from './gcp-call.js';
import { secretIdFor, secretMetadataFor, secretResourceName, versionNumberOf } from './gcp-secret-names.js';
import { SecretStoreError, SecretVersionNotFoundError } from './secret-errors.js';
import { SecretMapCache } from './secret-map-cache.js';
import {
  decodeSecretMap,
  emptySecretMap,
  encodeSecretMap,
  putSecretChange,
  removeSecretChange,
  type SecretMap,
  type SecretMapChange,
} from './secret-map.js';
import { bumpSecretMapRevision, findSecretMapRevision, withSecretMapLock } from './secret-map.repository.js';
import type { SecretScope, SecretStore } from './secret-store.js';
import { SharedMapLoads } from './shared-map-loads.js';

/** The Secret Manager methods this backend calls (the real client, or one pointed at a test server). */
export type SecretManagerApi = Pick<
  SecretManagerServiceClient,
  | 'accessSecretVersion'
  | 'addSecretVersion'
  | 'createSecret'
  | 'deleteSecret'
  | 'destroySecretVersion'
  | 'listSecretVersions'
>;

export interface GcpSecretStoreDeps {
  /** Holds the advisory locks that serialize writers and the revisions that invalidate caches. */
  db: Db;
  client: SecretManagerApi;
  /** GCP_PROJECT: the project that holds the secrets. */
  project: string;
  log: Logger;
  clock?: Clock | undefined;
  /** How long a cached map may serve reads while its revision is unchanged. */
  cacheTtlMs?: number;
  retry?: Partial<RetryPolicy>;
}

/**
 * SECRETS_BACKEND=gcp: one Secret Manager secret per (organization, environment) whose versions hold the JSON
 * map. Adding a version has no compare-and-swap, so each write reads, merges and adds while holding the map's
 * PostgreSQL advisory lock (ADR 0005); older versions are then destroyed, so a removed or replaced value stays
 * readable nowhere.
 */
export function createGcpSecretStore(deps: GcpSecretStoreDeps): SecretStore {
  const { db, client, project, log, clock = systemClock } = deps;
  const policy = { ...defaultRetryPolicy, ...deps.retry };
  const secretManager = createSecretManagerCaller(policy, log);
  const cache = new SecretMapCache(deps.cacheTtlMs ?? 30_000, clock);
  const latestLoads = new SharedMapLoads<SecretMap>();
  // The library's own retries would wait minutes on some methods; ours are bounded and shared by all calls.
  const callOptions = { retry: null, timeout: policy.callTimeoutMs };

  /** One version of the map; undefined when the secret, or that version, does not exist. */
  async function accessMap(scope: SecretScope, version: string): Promise<SecretMap | undefined> {
    const name = `${secretResourceName(project, scope)}/versions/${version}`;
    try {
      const [response] = await secretManager.call(
        `read the secrets of ${scope.environment}`,
        () => client.accessSecretVersion({ name }, callOptions),
        [GrpcCode.NOT_FOUND, GrpcCode.FAILED_PRECONDITION],
      );
      const data = response.payload?.data ?? '';
      const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : Buffer.from(data);
      return decodeSecretMap(bytes.toString('utf8'), scope.environment);
    } catch (error) {
      const code = grpcCodeOf(error);
      if (code === GrpcCode.NOT_FOUND || (code === GrpcCode.FAILED_PRECONDITION && version !== 'latest')) {
        return undefined;
      }
      if (code === GrpcCode.FAILED_PRECONDITION) {
        throw new SecretStoreError(
          `the latest Secret Manager version of the secrets of ${scope.environment} is disabled or destroyed; enable it again (see docs/secrets.md)`,
        );
      }
      throw error;
    }
  }

  async function loadLatestMap(scope: SecretScope): Promise<SecretMap> {
    const revision = await findSecretMapRevision(db, scope.organizationId, scope.environment);
    const cached = cache.get(scope, revision);
    if (cached !== undefined) return cached;
    const map = (await accessMap(scope, 'latest')) ?? emptySecretMap;
    cache.set(scope, revision, map);
    return map;
  }

  /** Reads of one map that overlap (a run resolving several references) share one revision check and access. */
  const readLatestMap = (scope: SecretScope): Promise<SecretMap> =>
    latestLoads.load(scope, () => loadLatestMap(scope));

  async function createSecret(scope: SecretScope): Promise<void> {
    const request = {
      parent: `projects/${project}`,
      secretId: secretIdFor(scope),
      secret: { replication: { automatic: {} }, ...secretMetadataFor(scope) },
    };
    try {
      await secretManager.call(
        `create the secret of ${scope.environment}`,
        () => client.createSecret(request, callOptions),
        [GrpcCode.ALREADY_EXISTS],
      );
    } catch (error) {
      // Left by an earlier write that failed before adding its version: use it.
      if (grpcCodeOf(error) !== GrpcCode.ALREADY_EXISTS) throw error;
    }
  }

  async function addVersion(scope: SecretScope, payload: string): Promise<number | undefined> {
    const [version] = await secretManager.call(`store the secrets of ${scope.environment}`, () =>
      client.addSecretVersion(
        { parent: secretResourceName(project, scope), payload: { data: Buffer.from(payload, 'utf8') } },
        callOptions,
      ),
    );
    return versionNumberOf(version.name);
  }

  /** Best effort: a version left enabled here is destroyed by the next write, which lists them all again. */
  async function destroyVersionsBefore(scope: SecretScope, newest: number): Promise<void> {
    const parent = secretResourceName(project, scope);
    try {
      const [versions] = await secretManager.call(`list the versions of ${scope.environment}`, () =>
        client.listSecretVersions({ parent, filter: 'state:ENABLED' }, callOptions),
      );
      for (const version of versions) {
        const number = versionNumberOf(version.name);
        if (number === undefined || number >= newest) continue;
        await secretManager.call(`destroy an old version of ${scope.environment}`, () =>
          client.destroySecretVersion({ name: version.name ?? null }, callOptions),
        );
      }
    } catch (error) {
      log.warn(
        { err: error, secret: parent },
        'older secret versions were not all destroyed; the next write retries',
      );
    }
  }

  async function deleteSecret(scope: SecretScope): Promise<void> {
    try {
      await secretManager.call(
        `delete the secret of ${scope.environment}`,
        () => client.deleteSecret({ name: secretResourceName(project, scope) }, callOptions),
        [GrpcCode.NOT_FOUND],
      );
    } catch (error) {
      if (grpcCodeOf(error) !== GrpcCode.NOT_FOUND) throw error;
    }
  }

  /** Read, change and store the map under its lock; the revision bump tells every replica's cache. */
  async function update<T>(scope: SecretScope, change: (map: SecretMap) => SecretMapChange<T>): Promise<T> {
    const { organizationId, environment } = scope;
    try {
      return await withSecretMapLock(db, organizationId, environment, async (trx) => {
        const current = await accessMap(scope, 'latest');
        const outcome = change(current ?? emptySecretMap);
        if (!('next' in outcome)) return outcome.result;
        if (outcome.next.size === 0) {
          await deleteSecret(scope);
        } else {
          // Refused with 413 here, before any call that writes.
          const payload = encodeSecretMap(outcome.next, environment);
          if (current === undefined) await createSecret(scope);
          const added = await addVersion(scope, payload);
          if (added !== undefined) await destroyVersionsBefore(scope, added);
        }
        await bumpSecretMapRevision(trx, organizationId, environment, clock.now());
        return outcome.result;
      });
    } finally {
      cache.forget(scope);
      latestLoads.forget(scope);
    }
  }

  return {
    async read(scope, name, version = 'latest') {
      if (version === 'latest') return (await readLatestMap(scope)).get(name);
      const map = await accessMap(scope, version);
      if (map === undefined) throw new SecretVersionNotFoundError(name, version, scope.environment);
      return map.get(name);
    },

    put: (scope, name, value) => update(scope, putSecretChange(name, value)),

    remove: (scope, name) => update(scope, removeSecretChange(name)),
  };
}
