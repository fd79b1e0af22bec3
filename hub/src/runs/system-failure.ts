import type { RunRow } from './run.repository.js';

/**
 * How the first error of a run failed by Meerkat itself begins, not by its target: the reaper's (a run nobody
 * finished), a result the database or the hub refused. The run counts as failed (error class `runner`), but
 * notification rules ignore it: it says nothing about the monitored service, and paging its owners for it would
 * be a false alarm. The platform team sees these in the worker log and in the reaper's warning.
 */
const SYSTEM_FAILURE_PREFIX = 'run failed by the system';

export function systemFailureError(reason: string): string {
  return `${SYSTEM_FAILURE_PREFIX}: ${reason}`;
}

export function isSystemFailure(run: Pick<RunRow, 'success' | 'errors'>): boolean {
  return run.success !== true && (run.errors[0]?.startsWith(`${SYSTEM_FAILURE_PREFIX}:`) ?? false);
}
