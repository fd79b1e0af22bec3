import { errorMessage } from '../log/error-facts.js';
import type { BatchV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { JobTemplate } from '../config/locations.js';
import type { LocationExecutor } from '../runs/location-executor.js';
import { kubeStatusOf } from '../kube/kube-status.js';
import { buildRunnerJob, runnerJobName } from './runner-job.js';

/**
 * The `job` executor: one batch/v1 Job per run, named from the run id. The runner in the Job claims the run and
 * reports it over the API; the Job watcher ends runs whose Job fails or disappears first.
 */
export function createJobExecutor(options: {
  batch: BatchV1Api;
  template: JobTemplate;
  runTimeoutMs: number;
  /** The location's EGRESS_* lists, passed to its runners (see buildRunnerJob). */
  egressEnvironment?: ReadonlyArray<{ name: string; value: string }>;
  log: Logger;
}): LocationExecutor {
  return {
    async execute(run) {
      const job = buildRunnerJob(run, options.template, options.runTimeoutMs, options.egressEnvironment);
      try {
        await options.batch.createNamespacedJob({ namespace: options.template.namespace, body: job });
        options.log.info({ runId: run.id, job: job.metadata?.name }, 'runner Job created');
      } catch (error) {
        // 409: this run's Job exists already (a redelivery, or a hub that restarted after creating it).
        if (kubeStatusOf(error) === 409) return;
        throw new Error(`creating runner Job ${runnerJobName(run.id)} failed: ${errorMessage(error)}`, {
          cause: error,
        });
      }
    },
  };
}
