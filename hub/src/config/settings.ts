import { z } from 'zod';
import { describeIssue, formatIssuePath } from '../contract/issue-path.js';
import '../contract/zod-messages.js';
import type { ApiKeyEntry } from '../auth/api-keys.js';
import { organizationIdSchema, roleSchema } from '../contract/roles.js';
import { egressSettingsShape } from '../egress/egress-rules.js';
import { metricsBearerTokenSchema } from '../http/metrics-server.js';
import { quotaSettingsShape } from '../quotas/organization-quotas.js';
import { assertionBudgetShape } from '../runner/assertion-budget-setting.js';
import { InvalidSettingError } from './invalid-setting-error.js';
import { locationsSetting } from './locations.js';

/** HEALTH_SUCCESS_THRESHOLD_PERCENT when unset; also what an app made without a metrics service uses. */
export const DEFAULT_HEALTH_SUCCESS_THRESHOLD_PERCENT = 99;

/** The process kinds of DESIGN.md; some defaults depend on which one is starting. */
export type ProcessKind = 'dev' | 'hub' | 'scheduler' | 'worker' | 'runner' | 'operator' | 'admin';

const portMessage = 'must be a port number from 1 to 65535';
const port = (fallback: number) =>
  z.coerce
    .number({ error: portMessage })
    .int(portMessage)
    .min(1, portMessage)
    .max(65535, portMessage)
    .default(fallback);
const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));
const optionalUrl = optionalString.pipe(z.url().optional());

export type { Location } from './locations.js';

/** WORKER_CONCURRENCY, which `meerkat worker --concurrency` overrides: checks under way at once. */
export const workerConcurrencySchema = z.coerce.number().int().min(1).max(1000).default(100);

const apiKeyEntrySchema = z
  .string()
  .transform((entry) => entry.trim().split(':'))
  .pipe(
    z.tuple(
      [
        organizationIdSchema,
        roleSchema,
        z.string().regex(/^[0-9a-f]{64}$/, 'the key hash must be 64 lowercase hex characters'),
      ],
      { error: 'each entry is organizationId:role:sha256 (see `meerkat keygen`)' },
    ),
  )
  .transform(([organizationId, role, sha256]): ApiKeyEntry => ({ organizationId, role, sha256 }));

const apiKeyEntries = optionalString
  .transform((raw) => (raw === undefined ? [] : raw.split(',').filter((entry) => entry.trim() !== '')))
  .pipe(z.array(apiKeyEntrySchema));

const settingsSchema = z
  .object({
    HOST: optionalString,
    PORT: port(3000),
    METRICS_PORT: port(9464),
    METRICS_BEARER_TOKEN: metricsBearerTokenSchema,
    DATABASE_URL: optionalString.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
        .optional(),
    ),
    MEERKAT_DATA_DIR: z.string().min(1).default('./.meerkat'),
    REDIS_URL: optionalString.pipe(
      z
        .string()
        .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
        .optional(),
    ),
    AUTH_MODE: z.enum(['api-key', 'oidc']).default('api-key'),
    AUTH_API_KEYS: apiKeyEntries,
    OIDC_ISSUER: optionalUrl,
    OIDC_AUDIENCE: optionalString,
    // The web console's public OIDC client (authorization code with PKCE); docs/console.md.
    OIDC_CONSOLE_CLIENT_ID: optionalString,
    OIDC_CONSOLE_SCOPE: z.string().min(1).default('openid'),
    OIDC_ALGORITHMS: z
      .string()
      .default('RS256,PS256,ES256,EdDSA')
      .transform((raw) => raw.split(',').map((a) => a.trim()))
      .pipe(
        z
          .array(
            z.enum([
              'RS256',
              'RS384',
              'RS512',
              'PS256',
              'PS384',
              'PS512',
              'ES256',
              'ES384',
              'ES512',
              'EdDSA',
            ]),
          )
          .min(1),
      ),
    SECRETS_BACKEND: z.enum(['local', 'gcp']).default('local'),
    SECRETS_KEY: optionalString.pipe(
      z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters (a 256-bit key)')
        .optional(),
    ),
    GCP_PROJECT: optionalString,
    LOCATIONS: locationsSetting,
    ...egressSettingsShape,
    ...quotaSettingsShape,
    // Its admins read and override every organization's quotas (docs/adr/0028-quotas-and-bulk-writes.md).
    PLATFORM_ADMIN_ORGANIZATION: optionalString.pipe(organizationIdSchema.optional()),
    WORKER_CONCURRENCY: workerConcurrencySchema,
    // Slots a worker holds at once, its memory bound under overload (docs/adr/0040-overload-is-shed.md).
    WORKER_MAX_HELD_SLOTS: z.coerce.number().int().min(1).max(1_000_000).default(2_000),
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000),
    RUN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
    ...assertionBudgetShape,
    REAPER_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
    RUN_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    MINUTE_ROLLUP_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(3),
    // Passing runs lose their step details after this, unless among the latest (docs/adr/0050); 0 keeps all.
    RUN_DETAILS_KEEP_MINUTES: z.coerce.number().int().min(0).max(5_256_000).default(60),
    RUN_DETAILS_KEEP_LATEST: z.coerce.number().int().min(1).max(1000).default(50),
    // `compact-unchanged`: a passing scheduled run whose previous run of its monitor and location passed is
    // inserted compacted, even the latest; failures and changes of outcome stay whole (docs/adr/0072).
    RUN_DETAILS_AT_INSERT: z.enum(['whole', 'compact-unchanged']).default('whole'),
    // Under load a worker starts a batch of results at most this often unless a full one waits (docs/adr/0082);
    // 0 writes each batch as soon as the one before it is committed.
    RUN_WRITE_GATHER_MS: z.coerce.number().int().min(0).max(1_000).default(100),
    // Compacted passing runs of hours that ended longer ago are folded, one row a monitor and hour, and leave the
    // run lists (docs/adr/0061); 0 keeps them as rows.
    RUN_FOLD_AFTER_MINUTES: z.coerce.number().int().min(0).max(5_256_000).default(1440),
    SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
    // Faults of PostgreSQL and Redis (docs/operations.md): how long start-up waits for them, how long a finished
    // run that could not be written is retried before it is dropped (and counted).
    STARTUP_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
    RUN_RECORD_RETRY_SECONDS: z.coerce.number().int().min(10).max(86_400).default(600),
    // A hung PostgreSQL costs a bound (docs/operations.md): the API's and the run path's statements, and the
    // scheduler's partition maintenance and retention deletes (and dev's migrations), which may take longer.
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(2_500),
    MAINTENANCE_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(86_400).default(900),
    // Connections of the process's pool, each a PostgreSQL backend (docs/adr/0081-fewer-postgres-backends.md):
    // unset, 10 for a process that serves the API alone, 5 for the API beside other roles (docs/adr/0086) and 3
    // for one without the API (worker, scheduler, a worker with the scheduler), whose roles share the pool. The scheduler's lease keeps a connection of its own and the
    // scheduler's maintenance one more, at most.
    DATABASE_POOL_SIZE: optionalString.pipe(
      z.coerce.number<string | undefined>().int().min(1).max(1000).optional(),
    ),
    HEALTH_SUCCESS_THRESHOLD_PERCENT: z.coerce
      .number()
      .min(0)
      .max(100)
      .default(DEFAULT_HEALTH_SUCCESS_THRESHOLD_PERCENT),
    METRICS_FLEET_MAX_AGE_PERCENT: z.coerce.number().min(0).max(10).default(0.2),
    // Rate limits of the API (docs/adr/0012-rate-limits.md); 0 turns a limit off.
    API_RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).max(100_000).default(20),
    API_RATE_LIMIT_BURST: z.coerce.number().int().min(0).max(1_000_000).default(100),
    API_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(30),
    API_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // A full collection when the V8 heap passes a budget that follows its live size (docs/adr/0071): at least
    // HEAP_BUDGET_MIB, and what the last one left plus HEAP_BUDGET_GROWTH_PERCENT. 0 turns it off; unset, it is
    // on for `meerkat dev` (110) and off for the other processes.
    HEAP_BUDGET_MIB: optionalString.pipe(
      z.coerce.number<string | undefined>().int().min(0).max(1_048_576).optional(),
    ),
    HEAP_BUDGET_GROWTH_PERCENT: z.coerce.number().int().min(10).max(1000).default(50),
    PUBLIC_URL: optionalUrl,
    SLACK_CLIENT_ID: optionalString,
    SLACK_CLIENT_SECRET: optionalString,
    SLACK_SIGNING_SECRET: optionalString,
    SLACK_API_URL: z.url().default('https://slack.com/api'),
    SLACK_AUTHORIZE_URL: z.url().default('https://slack.com/oauth/v2/authorize'),
  })
  .superRefine((env, ctx) => {
    if (env.AUTH_MODE === 'oidc') {
      if (!env.OIDC_ISSUER)
        ctx.addIssue({ code: 'custom', path: ['OIDC_ISSUER'], message: 'is required when AUTH_MODE=oidc' });
      if (!env.OIDC_AUDIENCE)
        ctx.addIssue({ code: 'custom', path: ['OIDC_AUDIENCE'], message: 'is required when AUTH_MODE=oidc' });
    }
    if (env.SECRETS_BACKEND === 'gcp' && !env.GCP_PROJECT) {
      ctx.addIssue({
        code: 'custom',
        path: ['GCP_PROJECT'],
        message: 'is required when SECRETS_BACKEND=gcp',
      });
    }
  });

type ParsedEnvironment = z.infer<typeof settingsSchema>;

export interface Settings extends Omit<ParsedEnvironment, 'HOST'> {
  readonly HOST: string;
  /** Which process these settings were parsed for. */
  readonly processKind: ProcessKind;
  /** `dev` is the laptop mode; every other process is production mode (missing keys stop it). */
  readonly production: boolean;
}

/** Settings a production process cannot do without; `dev` creates its own under MEERKAT_DATA_DIR. */
function requireForProcess(env: ParsedEnvironment, processKind: ProcessKind): void {
  if (processKind === 'hub' && env.AUTH_MODE === 'api-key' && env.AUTH_API_KEYS.length === 0) {
    throw new InvalidSettingError(
      'AUTH_API_KEYS',
      'is required when AUTH_MODE=api-key (create a key with `meerkat keygen`)',
    );
  }
  if (
    (processKind === 'hub' || processKind === 'worker' || processKind === 'scheduler') &&
    env.REDIS_URL === undefined
  ) {
    throw new InvalidSettingError(
      'REDIS_URL',
      `is required by meerkat ${processKind}: the run queues live in Redis`,
    );
  }
  if (['hub', 'worker', 'scheduler'].includes(processKind) && env.SECRETS_KEY === undefined) {
    throw new InvalidSettingError(
      'SECRETS_KEY',
      'is required: 64 hexadecimal characters that encrypt credentials and local secrets (e.g. `openssl rand -hex 32`)',
    );
  }
}

/**
 * Parses the environment once into a frozen settings object. Nothing else in the program reads `process.env`.
 * Throws InvalidSettingError naming the first bad setting.
 */
export function loadSettings(env: NodeJS.ProcessEnv, processKind: ProcessKind): Readonly<Settings> {
  const parsed = settingsSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const setting = String(issue?.path[0] ?? 'environment');
    const value = env[setting];
    // Inside a structured setting (LOCATIONS, AUTH_API_KEYS) name the part too: `[1].job.image: required`.
    const inner = formatIssuePath(issue?.path.slice(1) ?? []);
    const shown =
      value === undefined || inner !== '' || /KEY|SECRET|PASSWORD|URL/.test(setting)
        ? ''
        : ` (got "${value}")`;
    const reason = describeIssue({ path: inner, message: issue?.message ?? 'is invalid' });
    throw new InvalidSettingError(setting, `${reason}${shown}`);
  }
  requireForProcess(parsed.data, processKind);
  const settings: Settings = {
    ...parsed.data,
    HOST: parsed.data.HOST ?? (processKind === 'dev' ? '127.0.0.1' : '0.0.0.0'),
    processKind,
    production: processKind !== 'dev',
  };
  return Object.freeze(settings);
}
