import type { Role } from '../contract/roles.js';

/** Who is calling: every request past authentication carries one, and every repository call takes its org. */
export interface Principal {
  readonly organizationId: string;
  readonly role: Role;
  /** A stable, non-secret name for logs: the key's hash prefix, or the token's `sub`. */
  readonly subject: string;
  readonly method: 'api-key' | 'oidc';
}

/** Turns a bearer token into a principal, or throws UnauthorizedError (http/errors.ts). */
export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}
