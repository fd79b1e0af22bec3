import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { generateApiKey, hashApiKey, type ApiKeyEntry } from '../auth/api-keys.js';
import { generateCredentialKey } from '../crypto/credential-cipher.js';

/** What `meerkat dev` creates once under MEERKAT_DATA_DIR so a laptop needs no configuration. */
export interface DevCredentials {
  apiKey: string;
  entry: ApiKeyEntry;
  secretsKey: string;
  created: boolean;
}

/** The file `meerkat dev` wrote; a hand-edited one that lost a field fails here, naming it. */
const storedDevCredentialsSchema = z.object({
  apiKey: z.string(),
  organizationId: z.string(),
  secretsKey: z.string(),
});
type StoredDevCredentials = z.infer<typeof storedDevCredentialsSchema>;

const DEV_ORGANIZATION = 'dev';

export function loadOrCreateDevCredentials(dataDir: string): DevCredentials {
  const directory = resolve(dataDir);
  const file = join(directory, 'dev-credentials.json');
  let created = false;
  if (!existsSync(file)) {
    mkdirSync(directory, { recursive: true });
    const fresh: StoredDevCredentials = {
      apiKey: generateApiKey(),
      organizationId: DEV_ORGANIZATION,
      secretsKey: generateCredentialKey(),
    };
    writeFileSync(file, JSON.stringify(fresh, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    created = true;
  }
  chmodSync(file, 0o600);
  const stored = storedDevCredentialsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  return {
    apiKey: stored.apiKey,
    entry: { organizationId: stored.organizationId, role: 'admin', sha256: hashApiKey(stored.apiKey) },
    secretsKey: stored.secretsKey,
    created,
  };
}
