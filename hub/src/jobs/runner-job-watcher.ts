import { errorMessage } from '../log/error-facts.js';
import { makeInformer, type BatchV1Api, type KubeConfig, type V1Job } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { recordRunResult, type RunFinishedHook } from '../runs/run-finished.js';
import { createBackoff } from '../system/backoff.js';
import { ORGANIZATION_ANNOTATION, RUN_LABEL } from './runner-job.js';

export interface RunnerJobWatcherOptions {
  kubeConfig: KubeConfig;
  batch: BatchV1Api;
  namespace: string;
  db: Db;
  hooks: readonly RunFinishedHook[];
  log: Logger;
}

/** Why a finished-or-gone Job ends its run, when the runner did not report first; undefined while it may still. */
function failureOfJob(job: V1Job, event: 'update' | 'delete'): string | undefined {
  const name = job.metadata?.name ?? '(unnamed)';
  if (event === 'delete') return `runner Job ${name} was deleted before the run reported a result`;
  const failed = job.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed?.reason === 'DeadlineExceeded') {
    return `runner Job ${name} passed its activeDeadlineSeconds (${job.spec?.activeDeadlineSeconds ?? '?'} s) without a report`;
  }
  if (failed !== undefined)
    return `runner Job ${name} failed before reporting (${failed.reason ?? 'Failed'}: ${failed.message ?? 'the runner Pod exited with an error'})`;
  const complete = job.status?.conditions?.find((c) => c.type === 'Complete' && c.status === 'True');
  if (complete !== undefined) return `runner Job ${name} completed without reporting a result`;
  return undefined;
}

/**
 * Watches the runner Jobs of one namespace and fails the run of any Job that fails, passes its deadline, completes
 * without a report, or is deleted. A run that already has its result is left alone (finishing is once-only).
 * The watch restarts itself with backoff after an error, and a relist catches what happened meanwhile.
 */
export function watchRunnerJobs(options: RunnerJobWatcherOptions): { stop(): Promise<void> } {
  const { log } = options;
  const informer = makeInformer(
    options.kubeConfig,
    `/apis/batch/v1/namespaces/${options.namespace}/jobs`,
    () => options.batch.listNamespacedJob({ namespace: options.namespace, labelSelector: RUN_LABEL }),
    RUN_LABEL,
  );
  let stopped = false;
  const restarts = createBackoff({ initialMs: 1_000, maxMs: 60_000 });

  const settle = (job: V1Job, event: 'update' | 'delete') => {
    const reason = failureOfJob(job, event);
    const runId = job.metadata?.annotations?.['meerkat.dev/run-id'];
    const organizationId = job.metadata?.annotations?.[ORGANIZATION_ANNOTATION];
    if (reason === undefined || runId === undefined || organizationId === undefined) return;
    const completedAt = new Date();
    recordRunResult(
      options.db,
      { organization_id: organizationId, id: runId },
      { success: false, errors: [reason], steps: null, completedAt, durationMs: null },
      options.hooks,
    )
      .then((finished) => finished && log.warn({ runId, job: job.metadata?.name }, reason))
      .catch((error: unknown) => log.error({ err: error, runId }, 'could not fail the run of a runner Job'));
  };

  informer.on('add', (job) => settle(job, 'update'));
  informer.on('update', (job) => settle(job, 'update'));
  informer.on('delete', (job) => settle(job, 'delete'));
  informer.on('error', (error: unknown) => {
    if (stopped) return;
    const retryInMs = restarts.next();
    log.warn({ error: errorMessage(error), retryInMs }, 'runner Job watch failed; restarting');
    setTimeout(() => {
      if (!stopped) informer.start().catch(() => undefined);
    }, retryInMs).unref();
  });
  informer.on('connect', () => restarts.reset());
  // stop() during the first list aborts it: that rejection is ours, not a failure to report.
  informer.start().catch((error: unknown) => {
    if (!stopped) log.error({ err: error }, 'runner Job watch could not start');
  });

  return {
    async stop() {
      stopped = true;
      await informer.stop();
    },
  };
}
