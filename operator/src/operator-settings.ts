// The operator's configuration, parsed once from the environment into a frozen object.
import { z } from 'zod';
import { InvalidSettingError } from '../../hub/src/config/settings.js';

const operatorSettingsSchema = z.object({
  MEERKAT_URL: z.url({ error: 'must be the hub’s base URL, e.g. http://meerkat-hub:3000' }),
  MEERKAT_API_KEY: z
    .string({ error: 'is required: the operator’s own API key (an editor or admin of its organization)' })
    .min(1),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Every resource is listed and reconciled again this often, which also puts back changes made in the hub. */
  OPERATOR_RESYNC_SECONDS: z.coerce.number().int().min(5).max(86_400).default(300),
});
export type OperatorSettings = Readonly<z.infer<typeof operatorSettingsSchema>>;

export function loadOperatorSettings(env: NodeJS.ProcessEnv): OperatorSettings {
  const parsed = operatorSettingsSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidSettingError(String(issue?.path[0] ?? 'environment'), issue?.message ?? 'is invalid');
  }
  return Object.freeze(parsed.data);
}
