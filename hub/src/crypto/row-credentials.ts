import type { CredentialCipher } from './credential-cipher.js';

/**
 * The row whose `credentials_encrypted` column holds an envelope. Its table, organization and id are the
 * additional authenticated data, so an envelope decrypts only on its own row: copied to another row (or another
 * table) it fails with CredentialDecryptError.
 */
export interface CredentialRow {
  table: 'connections' | 'integrations';
  organizationId: string;
  id: string;
}

function contextOf(row: CredentialRow): string {
  return `${row.table}/${row.organizationId}/${row.id}`;
}

/** The `credentials_encrypted` envelope of a row's credentials (a JSON object). */
export function sealCredentials(
  cipher: CredentialCipher,
  row: CredentialRow,
  credentials: Record<string, unknown>,
): string {
  return cipher.encrypt(JSON.stringify(credentials), contextOf(row));
}

/** The credentials sealed in a row's envelope; throws CredentialDecryptError on any other row's. */
export function openCredentials(
  cipher: CredentialCipher,
  row: CredentialRow,
  envelope: string,
): Record<string, unknown> {
  return JSON.parse(cipher.decrypt(envelope, contextOf(row))) as Record<string, unknown>;
}
