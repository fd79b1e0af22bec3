import { z } from 'zod';
import { heartbeatTokenSchema } from '../contract/heartbeat.js';
import { monitorSchema } from '../contract/monitor-definition.js';
import { runSchema } from '../contract/run.js';
import { describeIssue } from '../contract/issue-path.js';
import type { FieldIssue } from '../http/errors.js';
import { toFieldIssues } from '../http/validation.js';
import { integrationSchema } from '../integrations/integration.schema.js';
import { maintenanceWindowSchema, silenceSchema } from '../maintenance/maintenance.schema.js';
import { monitorMetricsRowSchema, monitorMetricsSchema } from '../metrics/metrics.schema.js';
import { bulkMonitorAnswerSchema } from '../monitors/monitor-bulk.schema.js';
import { notificationEventSchema } from '../notifications/notification.schema.js';
import { organizationQuotaStateSchema, quotaOverridesRowSchema } from '../quotas/quota.schema.js';
import { errorBodySchema } from '../openapi/responses.js';
import { resolvedSecretSchema } from '../secrets/secret.schema.js';

/**
 * A 2xx answer of the hub that is not what the contract says it answers (not JSON, or a field of the wrong shape):
 * the hub and this client disagree, and acting on the answer would spread the disagreement. `issues` name the
 * fields (`data.frequency`, `data[3].status`); the path is the request's.
 */
export class HubAnswerError extends Error {
  readonly code = 'hub_answer_mismatch';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly issues: FieldIssue[],
  ) {
    super(
      `${method} ${path}: the hub's answer does not match the contract: ${issues.map(describeIssue).join('; ')}`,
    );
    this.name = new.target.name;
  }
}

/**
 * What the client reads of a row of `GET /metrics/monitors`: the columns `meerkat get` shows, and the latest run's
 * id and duration the operator writes into a Monitor's status (ADR 0073). A hub older than those fields omits
 * them: they read as null, and the operator then reads the monitor's own metrics.
 */
export const monitorHealthRowSchema = monitorMetricsRowSchema
  .pick({
    monitorId: true,
    status: true,
    successRate: true,
    runCount: true,
    p95DurationMs: true,
    lastRunAt: true,
    lastRunSuccess: true,
  })
  .extend({
    lastRunId: monitorMetricsRowSchema.shape.lastRunId.default(null),
    lastRunDurationMs: monitorMetricsRowSchema.shape.lastRunDurationMs.default(null),
  });

const one = <S extends z.ZodType>(schema: S) => z.object({ data: schema });
const list = <S extends z.ZodType>(schema: S) => z.object({ data: z.array(schema) });
const page = <S extends z.ZodType>(schema: S) => z.object({ data: z.array(schema), total: z.number().int() });

/** What each call of the client reads, by the contract's schemas (openapi: the same schemas answer the routes). */
export const answers = {
  monitor: one(monitorSchema),
  monitorPage: page(monitorSchema),
  bulkMonitorResults: bulkMonitorAnswerSchema,
  monitorMetrics: one(monitorMetricsSchema),
  monitorHealthPage: page(monitorHealthRowSchema),
  run: one(runSchema),
  runs: list(runSchema),
  notificationEvents: list(notificationEventSchema),
  integrationPage: page(integrationSchema),
  heartbeatToken: one(heartbeatTokenSchema),
  serviceStatus: z.object({ version: z.string().optional() }),
  silence: one(silenceSchema),
  silencePage: page(silenceSchema),
  maintenanceWindow: one(maintenanceWindowSchema),
  maintenanceWindows: list(maintenanceWindowSchema),
  resolvedSecret: one(resolvedSecretSchema),
  quotaState: one(organizationQuotaStateSchema),
  quotaOverridesPage: page(quotaOverridesRowSchema),
  /** A delete answers 204, no body. */
  nothing: z.undefined(),
};

/** The answer of `method path` read as `schema`; throws HubAnswerError naming what does not match. */
export function readAnswer<S extends z.ZodType>(
  method: string,
  path: string,
  schema: S,
  text: string,
): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HubAnswerError(method, path, [{ path: '', message: 'the body is not JSON' }]);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new HubAnswerError(method, path, toFieldIssues(parsed.error));
  return parsed.data;
}

/** An error answer's fields, any of them missing (a proxy's page, a 401 of an ingress); never throws. */
const errorAnswerSchema = errorBodySchema
  .pick({ error: true, details: true })
  .partial()
  .extend({ message: z.string().optional() });

export function readErrorAnswer(text: string): z.output<typeof errorAnswerSchema> {
  try {
    const parsed = errorAnswerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
