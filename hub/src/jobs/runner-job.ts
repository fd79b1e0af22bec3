import type { V1Job } from '@kubernetes/client-node';
import type { JobTemplate } from '../config/locations.js';
import type { RunRow } from '../runs/run.repository.js';

export const RUN_LABEL = 'meerkat.dev/run';
const MONITOR_LABEL = 'meerkat.dev/monitor';
const LOCATION_LABEL = 'meerkat.dev/location';
/** The run's organization rides on an annotation: the runner needs it to resolve secrets. */
export const ORGANIZATION_ANNOTATION = 'meerkat.dev/organization';

/**
 * The Job of a run is named from the run id, so creating it twice (a redelivered job, a hub restarted mid-way)
 * can only ever answer 409 for the second attempt, never make a second Job.
 */
export function runnerJobName(runId: string): string {
  return `meerkat-${runId.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.slice(0, 63).replace(/-+$/, '');
}

/** A label value is at most 63 characters of `[A-Za-z0-9._-]`, starting and ending alphanumeric. */
function labelValue(value: string): string {
  return value
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

/**
 * `egressEnvironment`: the EGRESS_* lists in force for the run's location (the hub's, with the location's
 * override applied), so the runner in the Job enforces the same policy a worker of that location would.
 */
export function buildRunnerJob(
  run: RunRow,
  template: JobTemplate,
  runTimeoutMs: number,
  egressEnvironment: ReadonlyArray<{ name: string; value: string }> = [],
): V1Job {
  const labels = {
    'app.kubernetes.io/name': 'meerkat-runner',
    [RUN_LABEL]: labelValue(run.id),
    [MONITOR_LABEL]: labelValue(run.monitor_id),
    [LOCATION_LABEL]: labelValue(run.location),
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: runnerJobName(run.id),
      namespace: template.namespace,
      labels,
      annotations: { [ORGANIZATION_ANNOTATION]: run.organization_id, 'meerkat.dev/run-id': run.id },
    },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: template.ttlSecondsAfterFinished,
      activeDeadlineSeconds: template.activeDeadlineSeconds ?? Math.ceil(runTimeoutMs / 1000) + 60,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          // The runner talks to the hub's API only: no Kubernetes token in a pod that runs users' requests.
          automountServiceAccountToken: false,
          ...(template.serviceAccountName ? { serviceAccountName: template.serviceAccountName } : {}),
          ...(template.nodeSelector ? { nodeSelector: template.nodeSelector } : {}),
          ...(template.tolerations ? { tolerations: template.tolerations } : {}),
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'runner',
              image: template.image,
              args: ['runner', '--run', run.id],
              env: [
                { name: 'MEERKAT_URL', value: template.hubUrl },
                { name: 'MEERKAT_ORGANIZATION_ID', value: run.organization_id },
                {
                  name: 'MEERKAT_API_KEY',
                  valueFrom: {
                    secretKeyRef: { name: template.apiKeySecret.name, key: template.apiKeySecret.key },
                  },
                },
                ...egressEnvironment,
              ],
              ...(template.resources
                ? {
                    // A V1ResourceRequirements has no room for an undefined list: name only those given.
                    resources: {
                      ...(template.resources.requests ? { requests: template.resources.requests } : {}),
                      ...(template.resources.limits ? { limits: template.resources.limits } : {}),
                    },
                  }
                : {}),
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
        },
      },
    },
  };
}
