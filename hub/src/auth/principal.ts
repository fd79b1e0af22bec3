import { z } from 'zod';

export const roleSchema = z.enum(['viewer', 'editor', 'admin', 'service']);
export type Role = z.infer<typeof roleSchema>;

/** Organization ids travel in keys, tokens and URLs of other systems: keep them plain. */
export const organizationIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'an organization id is 1-63 letters, digits, ".", "_" or "-"');

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
