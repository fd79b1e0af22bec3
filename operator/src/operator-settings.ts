// The operator's configuration, parsed once from the environment into a frozen object.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';
import { InvalidSettingError } from '../../hub/src/config/invalid-setting-error.js';
import { metricsBearerTokenSchema } from '../../hub/src/http/metrics-server.js';
import { parseProjectPolicy } from './project-tenancy.js';

const port = (fallback: number) => z.coerce.number().int().min(1).max(65_535).default(fallback);
const seconds = (min: number, fallback: number) =>
  z.coerce.number().int().min(min).max(86_400).default(fallback);

const operatorSettingsSchema = z.object({
  MEERKAT_URL: z.url({ error: 'must be the hub’s base URL, e.g. http://meerkat-hub:3000' }),
  MEERKAT_API_KEY: z
    .string({ error: 'is required: the operator’s own API key (an editor or admin of its organization)' })
    .min(1),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Every resource is listed and reconciled again this often, which also puts back changes made in the hub. */
  OPERATOR_RESYNC_SECONDS: seconds(5, 300),
  /** Each synced resource's health columns are read from the hub's metrics this often (plus up to a fifth). */
  OPERATOR_STATUS_SECONDS: seconds(5, 60),
  /**
   * Reconciles at once (controller-runtime's MaxConcurrentReconciles). A fleet's PUTs go to the hub in bulks of the
   * reconciles waiting on one: 64 keeps a 10,000 sync in step with the creations (ADR 0089), where 16 left it behind.
   */
  OPERATOR_WORKERS: z.coerce.number().int().min(1).max(64).default(64),
  /** Each call to the hub fails after this long, so a hub that accepts and never answers cannot stall a sync. */
  OPERATOR_HUB_TIMEOUT_SECONDS: seconds(1, 10),
  /** How long the hub may not answer before Monitors say so; a hub upgrade shorter than this is invisible. */
  OPERATOR_HUB_GRACE_SECONDS: seconds(0, 300),
  /** `namespace=project,project;...` (see project-tenancy.ts); empty: each namespace writes its own project. */
  OPERATOR_NAMESPACE_PROJECTS: z
    .string()
    .default('')
    .refine(
      (mapping) => {
        try {
          parseProjectPolicy(mapping);
          return true;
        } catch {
          return false;
        }
      },
      { error: 'must be namespace=project[,project...] entries separated by ";" (`*` for any)' },
    ),
  /** Only this namespace's Monitors are watched (one operator per team namespace); all when unset. */
  OPERATOR_WATCH_NAMESPACE: z.string().min(1).optional(),
  /**
   * The `meerkat.dev/cluster` label of every hub monitor this operator puts; its sweep deletes only monitors with
   * its own whose Monitor is gone (ADR 0065). Unset: a hash of the cluster's CA (cluster-identity.ts), its own per
   * cluster.
   */
  OPERATOR_CLUSTER_NAME: z
    .string()
    .regex(/^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$/, {
      error: 'must be a label value: 1-63 letters, digits, "_", "." or "-", starting and ending alphanumeric',
    })
    .optional(),
  /** The hub's address as people reach it, for status.lastRunUrl; default MEERKAT_URL. */
  MEERKAT_PUBLIC_URL: z.url().optional(),
  HOST: z.string().min(1).default('0.0.0.0'),
  METRICS_PORT: port(9464),
  METRICS_BEARER_TOKEN: metricsBearerTokenSchema,
  HEALTH_PORT: port(8081),
  /** `false` only for a single replica run by hand; two replicas without it would both write. */
  OPERATOR_LEADER_ELECTION: z.enum(['true', 'false']).default('true'),
  OPERATOR_LEASE_NAME: z.string().min(1).default('meerkat-operator'),
  OPERATOR_LEASE_SECONDS: seconds(3, 15),
  /** How long the operator waits at start for an API server that does not answer before it exits with one line. */
  STARTUP_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /** The Lease's namespace and this replica's identity; the chart sets them from the downward API. */
  POD_NAMESPACE: z.string().min(1).optional(),
  POD_NAME: z.string().min(1).optional(),
});
type ParsedSettings = z.infer<typeof operatorSettingsSchema>;
export type OperatorSettings = Readonly<
  Omit<ParsedSettings, 'POD_NAMESPACE' | 'POD_NAME'> & { POD_NAMESPACE: string; POD_NAME: string }
>;

/** In a Pod, the ServiceAccount's namespace is mounted next to its token. */
const serviceAccountNamespace = () => {
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim();
  } catch {
    return undefined;
  }
};

export function loadOperatorSettings(env: NodeJS.ProcessEnv): OperatorSettings {
  const parsed = operatorSettingsSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidSettingError(String(issue?.path[0] ?? 'environment'), issue?.message ?? 'is invalid');
  }
  return Object.freeze({
    ...parsed.data,
    POD_NAMESPACE: parsed.data.POD_NAMESPACE ?? serviceAccountNamespace() ?? 'default',
    // The host name is the Pod name in a Deployment; the pid keeps two local runs apart.
    POD_NAME: parsed.data.POD_NAME ?? `${hostname()}-${process.pid}`,
  });
}
