import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * AES-256-GCM envelopes for credentials at rest (connection and integration credentials, the local secret map).
 * `context` is bound as additional authenticated data, so a ciphertext copied onto another row does not decrypt.
 */
export interface CredentialCipher {
  encrypt(plaintext: string, context: string): string;
  decrypt(envelope: string, context: string): string;
}

class CredentialDecryptError extends Error {
  constructor() {
    super('stored credentials could not be decrypted (wrong SECRETS_KEY, or the data was altered)');
    this.name = new.target.name;
  }
}

export function createCredentialCipher(hexKey: string): CredentialCipher {
  const key = Buffer.from(hexKey, 'hex');
  if (key.length !== 32) throw new Error('the credential key must be 32 bytes (64 hexadecimal characters)');
  return {
    encrypt(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64'),
        cipher.getAuthTag().toString('base64'),
        body.toString('base64'),
      ].join('.');
    },
    decrypt(envelope, context) {
      const [version, iv, tag, body] = envelope.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
        throw new CredentialDecryptError();
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new CredentialDecryptError();
      }
    },
  };
}

export function generateCredentialKey(): string {
  return randomBytes(32).toString('hex');
}
