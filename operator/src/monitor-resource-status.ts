// The `status` of a Monitor resource: the source of the CRD's status schema and of the operator's writes.
import { z } from 'zod';

export const MONITOR_GROUP = 'meerkat.dev';
export const MONITOR_VERSION = 'v1alpha1';
export const MONITOR_PLURAL = 'monitors';
/**
 * Added once the hub holds the monitor (never before: a resource the hub refused has nothing to clean up), so
 * the hub monitor is deleted before the resource goes.
 */
export const CLEANUP_FINALIZER = 'meerkat.dev/cleanup';

export const conditionSchema = z
  .object({
    type: z.string().meta({
      description:
        'type: required. `Ready`, `Reconciling`, `Stalled` (as kstatus reads them), `Synced`, `Healthy` or ' +
        '`HubReachable`.',
    }),
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

/** Annotations a person sets to ask the operator for something now; any new value asks again. */
export const RUN_NOW_ANNOTATION = 'meerkat.dev/run-now';
export const SYNC_NOW_ANNOTATION = 'meerkat.dev/sync-now';

export const monitorResourceStatusSchema = z
  .object({
    observedGeneration: z
      .int()
      .min(0)
      .optional()
      .meta({
        description:
          'observedGeneration: optional. The metadata.generation the operator last reached a verdict on: ' +
          'accepted by the hub (Ready=True) or refused (Ready=False, Stalled=True, Synced=False says why).',
      }),
    monitorId: z.string().optional().meta({
      description: 'monitorId: optional. The hub monitor this resource is synced to (its metadata.uid).',
    }),
    health: z
      .enum(['healthy', 'degraded', 'failing', 'unknown'])
      .optional()
      .meta({
        description:
          'health: optional. The hub’s latest verdict: `healthy`, `degraded`, `failing`, or `unknown` while ' +
          'no run finished in the hub’s metrics period.',
      }),
    successRate: z
      .string()
      .optional()
      .meta({
        description:
          'successRate: optional. Success rate over the hub’s metrics period in whole percent, rounded down ' +
          '(`100%` only when every run passed), e.g. `99%`.',
      }),
    lastRun: z.string().optional().meta({
      description:
        'lastRun: optional. When the latest run finished, as of the last change of the health figures (RFC 3339).',
    }),
    lastRunId: z.string().optional().meta({ description: 'lastRunId: optional. The hub’s id of that run.' }),
    lastRunResult: z.enum(['Passed', 'Failed']).optional().meta({
      description: 'lastRunResult: optional. `Passed` or `Failed`.',
    }),
    lastRunError: z
      .string()
      .optional()
      .meta({
        description:
          'lastRunError: optional. The first error of the latest run when it failed, as the hub recorded it ' +
          '(credentials redacted, at most 512 characters).',
      }),
    lastRunUrl: z.string().optional().meta({
      description: 'lastRunUrl: optional. The run’s page in the hub’s web console (docs/console.md).',
    }),
    consoleUrl: z.string().optional().meta({
      description:
        'consoleUrl: optional. The monitor’s page in the hub’s web console: uptime, latency, runs and rules.',
    }),
    runNow: z
      .object({
        token: z.string().meta({ description: 'token: required. The `meerkat.dev/run-now` value handled.' }),
        runId: z.string().optional().meta({ description: 'runId: optional. The run it started.' }),
        message: z.string().optional().meta({ description: 'message: optional. Why no run was started.' }),
      })
      .optional()
      .meta({ description: 'runNow: optional. The latest `meerkat.dev/run-now` annotation handled.' }),
    updatedAt: z.string().optional().meta({
      description: 'updatedAt: optional. When the operator last put the spec into the hub (RFC 3339).',
    }),
    syncNowToken: z.string().optional().meta({
      description:
        'syncNowToken: optional. The latest `meerkat.dev/sync-now` value handled (the spec was put).',
    }),
    conditions: z
      .array(conditionSchema)
      .optional()
      .meta({
        description:
          'conditions: optional. `Ready`: the hub accepted this generation (`kubectl wait --for=condition=Ready`); ' +
          '`Stalled`: it refused it; `Reconciling`: no verdict yet. `Synced`: the spec is in the hub. ' +
          '`Healthy`: the latest runs pass. ' +
          '`HubReachable`: False once the hub has not answered for the operator’s grace period.',
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
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  status?: MonitorResourceStatus;
}
