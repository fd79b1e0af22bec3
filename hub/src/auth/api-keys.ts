import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../http/errors.js';
import type { Role } from '../contract/roles.js';
import type { Principal, TokenVerifier } from './principal.js';

/** One `AUTH_API_KEYS` entry: `organizationId:role:<hex sha256 of the key>`. The key itself is never configured. */
export interface ApiKeyEntry {
  organizationId: string;
  role: Role;
  sha256: string;
}

const KEY_PREFIX = 'mk_';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new key: 32 random bytes, base64url, with a prefix that secret scanners can recognise. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function formatApiKeyEntry(entry: ApiKeyEntry): string {
  return `${entry.organizationId}:${entry.role}:${entry.sha256}`;
}

/**
 * Verifies keys by hashing the presented token and comparing it with every configured hash in constant time.
 * All entries are compared on every call, so the time taken says nothing about which entry came close.
 */
export function createApiKeyVerifier(entries: readonly ApiKeyEntry[]): TokenVerifier {
  const hashes = entries.map((entry) => ({ entry, digest: Buffer.from(entry.sha256, 'hex') }));
  return {
    verify(token: string): Promise<Principal> {
      const presented = createHash('sha256').update(token, 'utf8').digest();
      let match: ApiKeyEntry | undefined;
      for (const { entry, digest } of hashes) {
        if (timingSafeEqual(presented, digest) && match === undefined) match = entry;
      }
      // A well-formed bearer token that is no configured key: say so, not that the header is malformed.
      if (match === undefined) return Promise.reject(new UnauthorizedError('API key is not known'));
      return Promise.resolve({
        organizationId: match.organizationId,
        role: match.role,
        subject: `key:${match.sha256.slice(0, 12)}`,
        method: 'api-key',
      });
    },
  };
}
