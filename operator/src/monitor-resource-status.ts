// The `status` of a Monitor resource: the source of the CRD's status schema and of the operator's writes.
import { z } from 'zod';

export const MONITOR_GROUP = 'meerkat.dev';
export const MONITOR_VERSION = 'v1alpha1';
export const MONITOR_PLURAL = 'monitors';
/** Held on every Monitor the operator has synced, so the hub monitor is deleted before the resource goes. */
export const CLEANUP_FINALIZER = 'meerkat.dev/cleanup';

export const conditionSchema = z
  .object({
    type: z.string().meta({ description: 'type: required. `Synced` or `Healthy`.' }),
    status: z.enum(['True', 'False', 'Unknown']).meta({ description: 'status: required.' }),
    observedGeneration: z.int().min(0).optional().meta({
      description: 'observedGeneration: optional. The metadata.generation this condition was set for.',
    }),
    reason: z.string().meta({ description: 'reason: required. CamelCase cause of the last transition.' }),
    message: z
      .string()
      .meta({ description: 'message: required. What a person needs to know, may be empty.' }),
    lastTransitionTime: z.string().meta({
      description:
        'lastTransitionTime: required. When status last changed (RFC 3339); kept while it does not.',
    }),
  })
  .meta({ id: 'Condition' });
export type Condition = z.infer<typeof conditionSchema>;

export const monitorResourceStatusSchema = z
  .object({
    observedGeneration: z.int().min(0).optional().meta({
      description: 'observedGeneration: optional. The metadata.generation last sent to the hub.',
    }),
    monitorId: z.string().optional().meta({
      description: 'monitorId: optional. The hub monitor this resource is synced to (its metadata.uid).',
    }),
    health: z.string().optional().meta({ description: 'health: optional. The hub’s latest health verdict.' }),
    successRate: z
      .string()
      .optional()
      .meta({ description: 'successRate: optional. Recent success rate, e.g. `99.5%`.' }),
    p95Ms: z
      .int()
      .optional()
      .meta({ description: 'p95Ms: optional. Recent 95th percentile duration in ms.' }),
    lastRun: z
      .string()
      .optional()
      .meta({ description: 'lastRun: optional. When the latest run finished (RFC 3339).' }),
    conditions: z.array(conditionSchema).optional().meta({
      description: 'conditions: optional. `Synced`: the spec is in the hub. `Healthy`: the latest runs pass.',
    }),
  })
  .meta({ id: 'MonitorStatus' });
export type MonitorResourceStatus = z.infer<typeof monitorResourceStatusSchema>;

/** A Monitor resource as the operator reads it from the API server. */
export interface MonitorResource {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation?: number;
    resourceVersion?: string;
    deletionTimestamp?: string | Date;
    finalizers?: string[];
  };
  spec?: Record<string, unknown>;
  status?: MonitorResourceStatus;
}
