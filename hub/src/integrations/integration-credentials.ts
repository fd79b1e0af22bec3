import type { CredentialCipher } from '../crypto/credential-cipher.js';

/** The additional authenticated data of an integration's credentials: they decrypt only on their own row. */
export function integrationCredentialContext(organizationId: string, id: string): string {
  return `integrations/${organizationId}/${id}`;
}

/** The `credentials_encrypted` envelope of integration `id`'s credentials (a JSON object). */
export function sealIntegrationCredentials(
  cipher: CredentialCipher,
  organizationId: string,
  id: string,
  credentials: Record<string, unknown>,
): string {
  return cipher.encrypt(JSON.stringify(credentials), integrationCredentialContext(organizationId, id));
}

/** The credentials sealed in integration `id`'s envelope; throws CredentialDecryptError on any other row's. */
export function openIntegrationCredentials(
  cipher: CredentialCipher,
  organizationId: string,
  id: string,
  envelope: string,
): Record<string, unknown> {
  return JSON.parse(cipher.decrypt(envelope, integrationCredentialContext(organizationId, id))) as Record<
    string,
    unknown
  >;
}
