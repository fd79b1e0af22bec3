import type { Executor } from '../db/database.js';

/** The few fields of a run that a notification message shows. */
export interface MessageRun {
  success: boolean | null;
  duration_ms: number | null;
  errors: string[];
  completed_at: Date | null;
}

/**
 * What a message says about its monitor and run, read together and without the monitor's definition or the
 * run's steps. Either is undefined when its row is gone (or the event names no run).
 */
export async function findMessageSubject(
  db: Executor,
  organizationId: string,
  monitorId: string,
  runId: string | null,
): Promise<{ monitor: { name: string } | undefined; run: MessageRun | undefined }> {
  const [monitor, run] = await Promise.all([
    db
      .selectFrom('monitors')
      .select('name')
      .where('organization_id', '=', organizationId)
      .where('id', '=', monitorId)
      .executeTakeFirst(),
    runId === null
      ? undefined
      : db
          .selectFrom('runs')
          .select(['success', 'duration_ms', 'errors', 'completed_at'])
          .where('organization_id', '=', organizationId)
          .where('id', '=', runId)
          .executeTakeFirst(),
  ]);
  return { monitor, run };
}
