import { SecretNotFoundError } from './secret-errors.js';
import { encodeSecretMap } from './secret-map.js';
import type { SecretStore } from './secret-store.js';
import type { PutSecret, ResolvedSecret, ResolveSecret, Secret } from './secret.schema.js';

export interface SecretServiceDeps {
  store: SecretStore;
}

export function createSecretService({ store }: SecretServiceDeps) {
  return {
    async put(organizationId: string, name: string, input: PutSecret) {
      const { environment, value } = input;
      // A value too large for any map is refused before the store is asked anything.
      encodeSecretMap(new Map([[name, value]]), environment);
      const { created } = await store.put({ organizationId, environment }, name, value);
      const secret: Secret = { name, environment };
      return { secret, created };
    },

    /** Whether the secret exists; its value stays in the store. */
    async get(organizationId: string, name: string, environment: string): Promise<Secret> {
      if ((await store.read({ organizationId, environment }, name)) === undefined) {
        throw new SecretNotFoundError(name, environment);
      }
      return { name, environment };
    },

    async remove(organizationId: string, name: string, environment: string): Promise<void> {
      if (!(await store.remove({ organizationId, environment }, name))) {
        throw new SecretNotFoundError(name, environment);
      }
    },

    /** The value, for runners; another organization's secrets answer exactly as missing ones do. */
    async resolve(callerOrganizationId: string, input: ResolveSecret): Promise<ResolvedSecret> {
      const { name, environment, organizationId, version } = input;
      if (organizationId !== callerOrganizationId) throw new SecretNotFoundError(name, environment);
      const value = await store.read({ organizationId, environment }, name, version);
      if (value === undefined) throw new SecretNotFoundError(name, environment);
      return { name, environment, value };
    },
  };
}

export type SecretService = ReturnType<typeof createSecretService>;
