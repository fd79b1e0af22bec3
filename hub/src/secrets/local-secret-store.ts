import type { CredentialCipher } from '../crypto/credential-cipher.js';
import type { Db } from '../db/database.js';
import { systemClock, type Clock } from '../system/clock.js';
import { SecretVersionsUnsupportedError } from './secret-errors.js';
import {
  decodeSecretMap,
  emptySecretMap,
  encodeSecretMap,
  putSecretChange,
  removeSecretChange,
  type SecretMap,
  type SecretMapChange,
} from './secret-map.js';
import {
  deleteSecretMapRow,
  findSecretMapRow,
  saveSecretMapRow,
  withSecretMapLock,
  type SecretMapRow,
} from './secret-map.repository.js';
import type { SecretScope, SecretStore } from './secret-store.js';
import { SharedMapLoads } from './shared-map-loads.js';

export interface LocalSecretStoreDeps {
  db: Db;
  /** The SECRETS_KEY cipher; each map is bound to its own row, so a copied ciphertext does not decrypt. */
  cipher: CredentialCipher;
  clock?: Clock | undefined;
}

/** The additional authenticated data of one environment's map. */
export function secretMapContext({ organizationId, environment }: SecretScope): string {
  return `secret_maps/${organizationId}/${environment}`;
}

/**
 * SECRETS_BACKEND=local: each environment's map is one AES-256-GCM envelope in `secret_maps`. It keeps only the
 * current map, so the only version it can read is `latest`.
 */
export function createLocalSecretStore({
  db,
  cipher,
  clock = systemClock,
}: LocalSecretStoreDeps): SecretStore {
  const decrypt = (scope: SecretScope, row: SecretMapRow | undefined): SecretMap =>
    row === undefined
      ? emptySecretMap
      : decodeSecretMap(cipher.decrypt(row.ciphertext, secretMapContext(scope)), scope.environment);

  const latestLoads = new SharedMapLoads<SecretMap>();

  /** Reads of one map that overlap (a run resolving several references) share one query and decryption. */
  const readLatestMap = (scope: SecretScope): Promise<SecretMap> =>
    latestLoads.load(scope, async () =>
      decrypt(scope, await findSecretMapRow(db, scope.organizationId, scope.environment)),
    );

  /** Reads, changes and writes one map while holding its lock; `change` returns undefined to write nothing. */
  async function update<T>(scope: SecretScope, change: (map: SecretMap) => SecretMapChange<T>): Promise<T> {
    const { organizationId, environment } = scope;
    try {
      return await withSecretMapLock(db, organizationId, environment, async (trx) => {
        const row = await findSecretMapRow(trx, organizationId, environment);
        const outcome = change(decrypt(scope, row));
        if (!('next' in outcome)) return outcome.result;
        if (outcome.next.size === 0) {
          await deleteSecretMapRow(trx, organizationId, environment);
        } else {
          await saveSecretMapRow(trx, {
            organization_id: organizationId,
            environment,
            ciphertext: cipher.encrypt(encodeSecretMap(outcome.next, environment), secretMapContext(scope)),
            version: (row?.version ?? 0) + 1,
            updated_at: clock.now(),
          });
        }
        return outcome.result;
      });
    } finally {
      latestLoads.forget(scope);
    }
  }

  return {
    async read(scope, name, version = 'latest') {
      if (version !== 'latest') throw new SecretVersionsUnsupportedError();
      return (await readLatestMap(scope)).get(name);
    },

    put: (scope, name, value) => update(scope, putSecretChange(name, value)),

    remove: (scope, name) => update(scope, removeSecretChange(name)),
  };
}
