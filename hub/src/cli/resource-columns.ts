import type { Monitor } from '../contract/monitor-definition.js';
import type { Run } from '../contract/run.js';
import type { Integration } from '../integrations/integration.schema.js';
import type { NotificationEvent } from '../notifications/notification.schema.js';
import type { MonitorHealthRow } from '../client/hub-client.js';
import type { Column } from './output-format.js';
import { failureReason } from './run-steps.js';

// The columns of `meerkat get` for each resource; `wide: true` ones only with `-o wide`.

/** A monitor with its health over the last 24 hours (`GET /metrics/monitors`), for the HEALTH and LAST RUN columns. */
export type MonitorRow = Monitor & { health?: MonitorHealthRow | undefined };

const every = (m: Monitor) =>
  `${m.frequency.every} ${m.frequency.unit.toLowerCase()}${m.frequency.every === 1 ? '' : 's'}`;

/** `pass 3m ago`: the outcome of the latest finished run and how long ago it started. */
export function describeLastRun(lastRun: { success: boolean; startedAt: string } | null, now: Date): string {
  if (lastRun === null) return '<none>';
  return `${lastRun.success ? 'pass' : 'fail'} ${age(lastRun.startedAt, now)} ago`;
}

/** kubectl's AGE: the largest whole unit, `45s`, `12m`, `3h`, `2d`. */
export function age(since: string, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(since)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

const lastRunOf = ({ lastRunAt, lastRunSuccess }: MonitorHealthRow) =>
  lastRunAt === null ? null : { success: lastRunSuccess === true, startedAt: lastRunAt };

export function monitorColumns(now: Date): Column<MonitorRow>[] {
  return [
    { title: 'ID', cell: (m) => m.id },
    { title: 'PROJECT', cell: (m) => m.project },
    { title: 'ENVIRONMENT', cell: (m) => m.environment },
    { title: 'NAME', cell: (m) => m.name },
    { title: 'EVERY', cell: every },
    { title: 'HEALTH', cell: (m) => m.health?.status ?? '<unknown>' },
    { title: 'LAST RUN', cell: (m) => (m.health ? describeLastRun(lastRunOf(m.health), now) : '<unknown>') },
    { title: 'SUCCESS', cell: (m) => (m.health ? `${m.health.successRate.toFixed(1)}%` : ''), wide: true },
    {
      title: 'P95',
      cell: (m) => (m.health ? `${Math.round(m.health.p95DurationMs)}ms` : ''),
      wide: true,
    },
    { title: 'LOCATIONS', cell: (m) => (m.locations ?? ['default']).join(','), wide: true },
    { title: 'UPDATED', cell: (m) => m.updatedAt, wide: true },
  ];
}

/** A run with its monitor's name when the answer did not carry it (`GET /runs/{id}`, read separately). */
export type RunRow = Run & { monitorName?: string | undefined };

export const runColumns = (now: Date): Column<RunRow>[] => [
  { title: 'ID', cell: (r) => r.id },
  { title: 'MONITOR', cell: (r) => r.monitor?.name ?? r.monitorName ?? r.monitorId },
  { title: 'LOCATION', cell: (r) => r.location },
  { title: 'STATUS', cell: (r) => r.status },
  { title: 'RESULT', cell: (r) => (r.success === null ? '' : r.success ? 'pass' : 'fail') },
  { title: 'DURATION', cell: (r) => (r.duration_ms === null ? '' : `${Math.round(r.duration_ms)}ms`) },
  { title: 'AGE', cell: (r) => age(r.createdAt, now) },
  { title: 'TRIGGER', cell: (r) => r.triggeredBy, wide: true },
  { title: 'ENVIRONMENT', cell: (r) => r.environment, wide: true },
  { title: 'MONITOR ID', cell: (r) => r.monitorId, wide: true },
  // Last, as kubectl puts free text: why a run failed is what a person reads a run table for.
  { title: 'REASON', cell: failureReason },
];

/** An event with its monitor's name (events carry only the id). */
export type EventRow = NotificationEvent & { monitorName?: string | undefined };

export const eventColumns = (now: Date): Column<EventRow>[] => [
  { title: 'ID', cell: (e) => e.id },
  { title: 'MONITOR', cell: (e) => e.monitorName ?? e.monitorId },
  { title: 'REASON', cell: (e) => e.triggerReason },
  { title: 'CHANNELS', cell: (e) => Object.keys(e.channelsNotified).join(',') },
  // What held the notification (issue 38): `silence/sil_...` or `maintenance/<window id>`.
  { title: 'HELD BY', cell: (e) => (e.heldBy === null ? '' : `${e.heldBy.kind}/${e.heldBy.id}`) },
  { title: 'AGE', cell: (e) => age(e.createdAt, now) },
  { title: 'MONITOR ID', cell: (e) => e.monitorId, wide: true },
  { title: 'RUN', cell: (e) => e.runId ?? '', wide: true },
  { title: 'RULE', cell: (e) => e.ruleId ?? '', wide: true },
];

export const integrationColumns: Column<Integration>[] = [
  { title: 'ID', cell: (i) => i.id },
  { title: 'NAME', cell: (i) => i.name },
  { title: 'ENVIRONMENT', cell: (i) => i.environment },
  { title: 'TYPE', cell: (i) => i.config.providerType },
  { title: 'ENABLED', cell: (i) => String(i.enabled) },
  { title: 'PROVIDER', cell: (i) => i.provider, wide: true },
  { title: 'CREATED', cell: (i) => i.createdAt, wide: true },
];
