// The API's shapes, from the hub's own contract: the console type-checks against what the API answers.
export type { Run } from '../../hub/src/contract/run.js';
export type { Monitor } from '../../hub/src/contract/monitor-definition.js';
export type { MonitorMetrics, MonitorMetricsRow, Period } from '../../hub/src/metrics/metrics.schema.js';
export type { StepResult, AssertionOutcome, StepTimings } from '../../hub/src/runner/run-outcome.js';
export type {
  MonitorHourlyRuns,
  PrincipalSummary,
  PublicStatusPage,
  StatusPage,
  UptimeDay,
} from '../../hub/src/contract/console.js';

/** A page of a list endpoint that pages with `page` and `limit`. */
export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
}
export type { NotificationEvent, NotificationRule } from '../../hub/src/notifications/notification.schema.js';
export type { MaintenanceWindow, Silence } from '../../hub/src/maintenance/maintenance.schema.js';
export type { Matcher } from '../../hub/src/contract/maintenance-definition.js';
