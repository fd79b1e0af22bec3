import { z } from 'zod';

// Roles and organization ids are part of the contract (API keys, OIDC claims and the console carry them), so they
// live here, below auth/, which builds principals from them.

export const roleSchema = z.enum(['viewer', 'editor', 'admin', 'service']);
export type Role = z.infer<typeof roleSchema>;

/** Organization ids travel in keys, tokens and URLs of other systems: keep them plain. */
export const organizationIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'an organization id is 1-63 letters, digits, ".", "_" or "-"');
