import { z } from 'zod';
import { egressOverrideSchema } from '../egress/egress-rules.js';

const dnsLabel = z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a DNS label');
const quantities = z.record(z.string(), z.string());

/** How a `job` location runs each run: a batch/v1 Job made from this template (docs/locations.md). */
export const jobTemplateSchema = z.strictObject({
  namespace: dnsLabel,
  image: z.string().min(1),
  /** The hub's address as the runner Pod reaches it (an in-cluster Service URL). */
  hubUrl: z.url(),
  /** The Secret (in `namespace`) holding the runner's API key of role `service`. */
  apiKeySecret: z.strictObject({ name: dnsLabel, key: z.string().min(1) }),
  serviceAccountName: dnsLabel.optional(),
  nodeSelector: z.record(z.string(), z.string()).optional(),
  tolerations: z.array(z.record(z.string(), z.unknown())).optional(),
  resources: z.strictObject({ requests: quantities.optional(), limits: quantities.optional() }).optional(),
  /** A kubeconfig file of another cluster to create the Jobs in; the hub's own cluster when absent. */
  kubeconfig: z.string().min(1).optional(),
  ttlSecondsAfterFinished: z.int().min(0).max(604_800).default(600),
  /** Default: the run timeout plus a minute, so a runner that never reports is ended by Kubernetes. */
  activeDeadlineSeconds: z.int().min(10).max(86_400).optional(),
});
export type JobTemplate = z.infer<typeof jobTemplateSchema>;

/** `egress`: lists that replace the EGRESS_* lists of the same name for this location's runs (docs/egress.md). */
const egress = egressOverrideSchema.optional();

const locationSchema = z.discriminatedUnion('executor', [
  z.strictObject({ name: dnsLabel, executor: z.literal('worker'), egress }),
  z.strictObject({ name: dnsLabel, executor: z.literal('job'), job: jobTemplateSchema, egress }),
]);
export type Location = z.infer<typeof locationSchema>;

/** `name[:worker]` entries separated by commas; a `job` location needs its template, so the JSON form. */
function parseShortForm(raw: string): unknown[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [name = '', executor = 'worker'] = entry.split(':');
      return { name, executor };
    });
}

/**
 * `LOCATIONS`: either the short form (`default,eu-west`) or a JSON array of locations with their Job templates
 * (what the Helm chart renders). Names must be unique.
 */
export const locationsSetting = z
  .string()
  .default('default:worker')
  .transform((raw, ctx) => {
    if (!raw.trim().startsWith('[')) return parseShortForm(raw);
    try {
      const parsed: unknown = JSON.parse(raw);
      return parsed;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(locationSchema)
      .min(1, 'at least one location is needed')
      .refine(
        (list) => new Set(list.map((l) => l.name)).size === list.length,
        'location names must be unique',
      ),
  );
