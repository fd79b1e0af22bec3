import type { CredentialCipher } from '../crypto/credential-cipher.js';

/** The additional authenticated data of a connection's credentials: they decrypt only on their own row. */
export function connectionCredentialContext(organizationId: string, id: string): string {
  return `connections/${organizationId}/${id}`;
}

/** The `credentials_encrypted` envelope of connection `id`'s credentials (a JSON object). */
export function sealConnectionCredentials(
  cipher: CredentialCipher,
  organizationId: string,
  id: string,
  credentials: Record<string, unknown>,
): string {
  return cipher.encrypt(JSON.stringify(credentials), connectionCredentialContext(organizationId, id));
}

/** The credentials sealed in connection `id`'s envelope; throws CredentialDecryptError on any other row's. */
export function openConnectionCredentials(
  cipher: CredentialCipher,
  organizationId: string,
  id: string,
  envelope: string,
): Record<string, unknown> {
  return JSON.parse(cipher.decrypt(envelope, connectionCredentialContext(organizationId, id))) as Record<
    string,
    unknown
  >;
}
