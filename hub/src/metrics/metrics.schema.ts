import { z } from 'zod';
import { monitorIdSchema } from '../contract/monitor-definition.js';
import { ERROR_CLASSES } from '../runner/run-outcome.js';

export const periodSchema = z.enum(['1h', '6h', '24h', '7d', '30d']).meta({ id: 'MetricsPeriod' });
export type Period = z.infer<typeof periodSchema>;
export const healthStatusSchema = z.enum(['healthy', 'degraded', 'failing']).meta({ id: 'HealthStatus' });
export type HealthStatus = z.infer<typeof healthStatusSchema>;

const environment = z
  .string()
  .min(1)
  .max(63)
  .optional()
  .meta({ description: 'Only monitors of this environment, and only their runs in it.' });

export const monitorMetricsQuery = z.strictObject({ period: periodSchema.default('24h'), environment });
export const monitorMetricsParams = z.strictObject({ monitorId: monitorIdSchema });

export const listMonitorMetricsQuery = z.strictObject({
  period: periodSchema.default('24h'),
  status: healthStatusSchema.optional(),
  environment,
  sort: z.enum(['name', 'success_rate', 'p95_duration_ms', 'run_count']).default('name'),
  order: z.enum(['asc', 'desc']).default('asc'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});
export type ListMonitorMetricsQuery = z.infer<typeof listMonitorMetricsQuery>;

const timestamp = z.iso.datetime();
const maintenance = z
  .object({
    windowId: z.string(),
    name: z.string(),
    start: timestamp,
    end: timestamp,
    excludeFromFigures: z.boolean(),
  })
  .nullable()
  .meta({
    id: 'MonitorMaintenance',
    description: 'The maintenance window the monitor is in now (in any of its locations), or null.',
  });
const runCounts = z.object({
  total: z.number().int(),
  successful: z.number().int(),
  failed: z.number().int(),
  successRate: z.number().meta({ description: 'Percent of finished runs that succeeded (0 without runs).' }),
});

export const monitorMetricsSchema = z
  .object({
    monitorId: z.string(),
    monitorName: z.string(),
    environment: z.string(),
    period: periodSchema,
    periodStart: timestamp,
    periodEnd: timestamp,
    status: healthStatusSchema,
    runs: runCounts,
    latency: z.object({
      minDurationMs: z.number(),
      avgDurationMs: z.number(),
      p50DurationMs: z.number(),
      p95DurationMs: z.number(),
      p99DurationMs: z.number(),
      maxDurationMs: z.number(),
    }),
    uptimePercent: z.number().meta({
      description:
        'Time-weighted uptime over the known time of the period (docs/adr/0048-uptime-counts-known-time.md); 0 when none of it is known: knownSeconds 0 says no data.',
    }),
    knownSeconds: z.number().int().meta({
      description:
        'Seconds of the period held by a result: not before the first one, not from a gap to the next.',
    }),
    recentFailures: z.array(z.object({ id: z.string(), startedAt: timestamp, errors: z.array(z.string()) })),
    errorDistribution: z.record(z.string(), z.number().int()).meta({
      description: `Failed runs by error class: ${ERROR_CLASSES.join(', ')}.`,
    }),
    lastRun: z
      .object({
        id: z.string(),
        status: z.string(),
        success: z.boolean(),
        startedAt: timestamp,
        durationMs: z.number(),
      })
      .nullable()
      .meta({ description: 'The latest finished run, at any time; null when the monitor never ran.' }),
    maintenance,
  })
  .meta({ id: 'MonitorMetrics' });
export type MonitorMetrics = z.infer<typeof monitorMetricsSchema>;

export const monitorMetricsRowSchema = z
  .object({
    monitorId: z.string(),
    monitorName: z.string(),
    environment: z.string(),
    status: healthStatusSchema,
    successRate: z.number(),
    runCount: z.number().int(),
    p50DurationMs: z.number(),
    p95DurationMs: z.number(),
    lastRunAt: timestamp.nullable(),
    lastRunSuccess: z
      .boolean()
      .nullable()
      .meta({ description: 'Whether the run at `lastRunAt` succeeded; null when the monitor never ran.' }),
    lastRunId: z
      .string()
      .nullable()
      .meta({ description: 'The id of the run at `lastRunAt`; null when the monitor never ran.' }),
    lastRunDurationMs: z
      .number()
      .nullable()
      .meta({ description: 'How long the run at `lastRunAt` took; null when the monitor never ran.' }),
    lastSuccessAt: timestamp.nullable(),
    lastFailureAt: timestamp.nullable(),
    maintenance,
  })
  .meta({ id: 'MonitorMetricsRow' });
export type MonitorMetricsRow = z.infer<typeof monitorMetricsRowSchema>;

export const metricsSummarySchema = z
  .object({
    period: periodSchema,
    periodStart: timestamp,
    periodEnd: timestamp,
    monitors: z.object({
      total: z.number().int(),
      passing: z.number().int(),
      failing: z.number().int(),
      noRecentRuns: z.number().int(),
    }),
    runs: runCounts,
    latency: z.object({ p50DurationMs: z.number(), p95DurationMs: z.number(), p99DurationMs: z.number() }),
    uptimePercent: z.number().meta({
      description:
        'The mean uptime of the monitors with known time in the period; 0 when none has any (knownSeconds 0).',
    }),
    knownSeconds: z.number().int().meta({ description: 'The known seconds of every monitor, summed.' }),
    failingMonitors: z.array(
      z.object({
        monitorId: z.string(),
        monitorName: z.string(),
        lastFailureAt: timestamp,
        consecutiveFailures: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'MetricsSummary' });
export type MetricsSummary = z.infer<typeof metricsSummarySchema>;
