// The secrets backends under test, each with a way to look at what it stored: the local backend's decrypted row,
// or the latest payload the fake Secret Manager received. Use with describe.each.
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { pino } from 'pino';
import { createCredentialCipher, generateCredentialKey } from '../../hub/src/crypto/credential-cipher.js';
import type { Db } from '../../hub/src/db/database.js';
import { createGcpSecretStore } from '../../hub/src/secrets/gcp-secret-store.js';
import { secretIdFor } from '../../hub/src/secrets/gcp-secret-names.js';
import { createLocalSecretStore, secretMapContext } from '../../hub/src/secrets/local-secret-store.js';
import { findSecretMapRow } from '../../hub/src/secrets/secret-map.repository.js';
import type { SecretScope, SecretStore } from '../../hub/src/secrets/secret-store.js';
import type { Clock } from '../../hub/src/system/clock.js';
import { FakeSecretManager } from './fake-secret-manager.js';

export interface BackendUnderTest {
  /** Another store on the same database and Secret Manager: a second hub replica. */
  replica(options?: { clock?: Clock }): SecretStore;
  /** What the backend holds for the scope right now, or undefined when it holds nothing. */
  storedMap(scope: SecretScope): Promise<Record<string, string> | undefined>;
  /** The fake Secret Manager of the gcp backend. */
  secretManager?: FakeSecretManager;
  dispose(): Promise<void>;
}

export interface SecretBackend {
  name: 'local' | 'gcp';
  open(db: Db): Promise<BackendUnderTest>;
}

/** Retries without real waiting, so tests of transient failures stay fast. */
export const quickRetries = { initialDelayMs: 1, maxDelayMs: 2 };

export const secretBackends: SecretBackend[] = [
  {
    name: 'local',
    open(db) {
      const cipher = createCredentialCipher(generateCredentialKey());
      return Promise.resolve({
        replica: ({ clock } = {}) => createLocalSecretStore({ db, cipher, clock }),
        async storedMap(scope) {
          const row = await findSecretMapRow(db, scope.organizationId, scope.environment);
          if (row === undefined) return undefined;
          return JSON.parse(cipher.decrypt(row.ciphertext, secretMapContext(scope))) as Record<
            string,
            string
          >;
        },
        dispose: () => Promise.resolve(),
      });
    },
  },
  {
    name: 'gcp',
    async open(db) {
      const secretManager = await FakeSecretManager.start();
      const clients: SecretManagerServiceClient[] = [];
      return {
        secretManager,
        replica({ clock } = {}) {
          const client = secretManager.client();
          clients.push(client);
          const log = pino({ level: 'silent' });
          return createGcpSecretStore({
            db,
            client,
            project: secretManager.project,
            log,
            clock,
            retry: quickRetries,
          });
        },
        storedMap: (scope) => Promise.resolve(secretManager.latestMap(secretIdFor(scope))),
        async dispose() {
          await Promise.all(clients.map((client) => client.close()));
          await secretManager.close();
        },
      };
    },
  },
];
