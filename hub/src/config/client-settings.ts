import { z } from 'zod';
import { InvalidSettingError } from './invalid-setting-error.js';

/** What the client commands (`apply`, `get`) need to reach a hub. */
const clientSettingsSchema = z.object({
  MEERKAT_URL: z.url().default('http://127.0.0.1:3000'),
  MEERKAT_API_KEY: z
    .string({ error: 'is required: the API key the commands act with (see `meerkat keygen`)' })
    .min(1),
});
export type ClientSettings = Readonly<z.infer<typeof clientSettingsSchema>>;

export function loadClientSettings(env: NodeJS.ProcessEnv): ClientSettings {
  const parsed = clientSettingsSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidSettingError(String(issue?.path[0] ?? 'environment'), issue?.message ?? 'is invalid');
  }
  return Object.freeze(parsed.data);
}
