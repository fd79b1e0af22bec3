import { ERROR_CLASSES, type ErrorClass } from '../runner/run-outcome.js';

const errorClasses: ReadonlySet<string> = new Set<ErrorClass>(ERROR_CLASSES);

/**
 * The one class a failed run is counted under in `errorDistribution`: the class of its first failed step, in
 * the order of the definition's nodes. A run failed without a classified step (the runner crashed, the reaper
 * failed it, the monitor was deleted) is a `runner` failure, so the distribution always sums to `runs.failed`.
 */
export function errorClassOfRun(steps: unknown): ErrorClass {
  if (Array.isArray(steps)) {
    for (const step of steps as Array<{ status?: unknown; errorClass?: unknown }>) {
      if (
        step.status === 'failed' &&
        typeof step.errorClass === 'string' &&
        errorClasses.has(step.errorClass)
      )
        return step.errorClass as ErrorClass;
    }
  }
  return 'runner';
}
