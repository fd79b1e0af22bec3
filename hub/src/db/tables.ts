import type { ColumnType, Generated } from 'kysely';
import type { MonitorDefinition } from '../contract/monitor-definition.js';
import type { JsonText } from './json-column.js';
import type { Routing, Trigger } from '../contract/notification-definition.js';
import type { MaintenanceSchedule, Matcher } from '../contract/maintenance-definition.js';

/** Timestamps are written as Date or ISO strings and always read back as Date. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** A `jsonb` column: read as `T`, written only as the text `jsonColumn` makes of a `T` (db/json-column.ts). */
type Json<T extends object | null> = ColumnType<T, JsonText<T>, JsonText<T>>;

/** A definition stored under the current schema version: what PUT /monitor/{id} took, parsed. */
export type CurrentStoredDefinition = MonitorDefinition;

/** A definition stored under an older schema version: untyped until upgraded (monitors/stored-definition.ts). */
export interface OlderStoredDefinition {
  version?: string;
  [field: string]: unknown;
}

/**
 * A stored monitor definition, by the schema version it was stored under (its `version`, which the row's
 * `schema_version` repeats). Readers take the current shape from monitors/stored-definition.ts, which upgrades.
 */
export type StoredDefinition = CurrentStoredDefinition | OlderStoredDefinition;

/** A step of a run's report as stored and answered (contract/run.ts). */
export type StoredStep = Record<string, unknown>;

/**
 * What a notification rule remembers between runs so that edge- and streak-triggers fire once per condition; owned
 * by trigger evaluation (notifications/trigger-evaluation.ts).
 */
export interface RuleState {
  /** consecutive_failures: locations whose current streak was already notified. */
  notifiedStreaks?: Record<string, true>;
  /** success_rate_below, latency_above: the condition was met and notified. */
  active?: boolean;
  /**
   * Per location: the latest notification a silence or maintenance window held there, released or dropped by the
   * first run there that nothing holds.
   */
  heldEvents?: Record<string, string>;
}

/** The silence or maintenance window that held a notification event. */
export interface HeldBy {
  kind: 'silence' | 'maintenance';
  id: string;
}

/** Where one channel of a notification event goes: the integration, location and kind, and the channel's fields. */
export type NotifiedChannel = Record<string, unknown> & {
  integrationId: string;
  location: string;
  kind: string;
};

/** How far one channel of a notification event got (`pending`, `delivered`, `failed`, `skipped`) and why. */
export type ChannelDelivery = Record<string, unknown> & { status?: string };

export interface MonitorTable {
  organization_id: string;
  id: string;
  project: string;
  environment: string;
  name: string;
  schema_version: string;
  definition: Json<StoredDefinition>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface RunTable {
  organization_id: string;
  id: string;
  monitor_id: string;
  execution_group_id: string;
  location: string;
  environment: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  triggered_by: 'schedule' | 'manual';
  /** The scheduled slot this run fills (null for manual runs); unique per monitor and location. */
  schedule_slot: string | null;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  duration_ms: number | null;
  success: boolean | null;
  errors: Json<string[]>;
  /** Written from the runner's step reports (any JSON values, as a queue hands them over), read as records. */
  steps: ColumnType<StoredStep[], JsonText<readonly unknown[]>, JsonText<readonly unknown[]>> | null;
  browser: string | null;
  /** Null until the compaction job looked at a passing run; true once its steps were compacted (ADR 0050). */
  details_compacted: boolean | null;
  created_at: CreatedAt;
}

/**
 * Old passing runs of one monitor, location and hour, folded (docs/adr/0061-fold-old-passing-runs.md): one array
 * element per run, in slot order.
 */
export interface RunFoldTable {
  organization_id: string;
  monitor_id: string;
  location: string;
  environment: string;
  hour: Date;
  /** The first run's slot, in milliseconds into the hour: a second fold of the same hour is a second row. */
  first_slot: number;
  /** The runs' ids without their `run_` prefix, and their execution groups' without `grp_`. */
  run_ids: string[];
  group_ids: string[];
  /** Each run's slot (its `created_at`), in milliseconds into the hour. */
  slots: number[];
  /** Each run's start in milliseconds after its slot, and its end in milliseconds after its start. */
  started: Array<number | null>;
  completed: Array<number | null>;
  durations: Array<number | null>;
  /** Each run's compacted steps. */
  steps: Json<unknown[][]>;
}

/**
 * A monitor, location and hour with compacted runs the fold has not folded yet (docs/adr/0083): written by the first
 * compacted run of the hour, deleted by the fold of that hour.
 */
export interface RunFoldHourTable {
  hour: Date;
  organization_id: string;
  monitor_id: string;
  location: string;
}

export interface NotificationRuleTable {
  organization_id: string;
  id: string;
  monitor_id: string;
  /** Hash of (trigger, routing, integration): a rule's identity across monitor syncs. */
  identity_hash: string;
  trigger: Json<Trigger>;
  routing: Json<Routing>;
  integration_id: string;
  integration_name: string;
  cooldown_minutes: number;
  enabled: Generated<boolean>;
  last_triggered_at: Timestamp | null;
  /** Edge-trigger state of the rule (streak counted, condition active), owned by trigger evaluation. */
  state: Json<RuleState>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** Migration 0014: remind every so many minutes while the condition holds (null: never). */
  repeat_minutes: number | null;
  /** Migration 0014: notify when the condition clears. */
  send_resolved: Generated<boolean>;
  /** Migration 0014: what happens to a held notification when its silence or window ends. */
  held_notifications: Generated<'deliver' | 'drop'>;
}

export interface NotificationEventTable {
  organization_id: string;
  id: string;
  rule_id: string | null;
  monitor_id: string;
  run_id: string | null;
  trigger_reason: string;
  channels_notified: Json<Record<string, NotifiedChannel>>;
  delivery_status: Json<Record<string, ChannelDelivery>>;
  created_at: CreatedAt;
  /** Migration 0014: the silence or window that held the event (null when it was sent at once). */
  held_by: Json<HeldBy> | null;
}

/** An ad hoc mute of notifications (Alertmanager's silence); kept after it ends, for audit. */
export interface SilenceTable {
  organization_id: string;
  id: string;
  matchers: Json<Matcher[]>;
  starts_at: Timestamp;
  ends_at: Timestamp;
  comment: string;
  created_by: string;
  /** Who ended it before its time, when someone did. */
  expired_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** A planned, possibly recurring, window: notifications held, runs kept out of the figures when it says so. */
export interface MaintenanceWindowTable {
  organization_id: string;
  id: string;
  name: string;
  description: string | null;
  matchers: Json<Matcher[]>;
  schedule: Json<MaintenanceSchedule>;
  exclude_from_figures: boolean;
  created_by: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface IntegrationTable {
  organization_id: string;
  id: string;
  environment: string;
  name: string;
  category: string;
  provider: string;
  provider_type: string;
  config: Json<Record<string, unknown>>;
  /** AES-256-GCM envelope (see crypto/credential-cipher.ts); never returned by the API. */
  credentials_encrypted: string | null;
  connection_id: string | null;
  enabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ConnectionTable {
  organization_id: string;
  id: string;
  provider: string;
  auth_method: string;
  credentials_encrypted: string | null;
  oauth_connected_at: Timestamp | null;
  oauth_scopes: Json<string[]>;
  metadata: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface OAuthTransactionTable {
  id: string;
  organization_id: string;
  environment: string;
  provider_type: string;
  /** sha256 of the one-time `state` nonce; the nonce itself is never stored. */
  state_hash: string;
  status: 'pending' | 'completed' | 'expired' | 'failed';
  integration_id: string | null;
  error_message: string | null;
  created_at: CreatedAt;
  expires_at: Timestamp;
  finished_at: Timestamp | null;
  /** The name the chat integration gets when the install creates it (migration 0005). */
  integration_name: string | null;
  /** The default channel asked for at initiate, kept in the chat integration's config. */
  channel: string | null;
}

/** Events API deliveries already processed; the primary key makes a retried delivery a no-op. */
export interface SlackEventTable {
  event_id: string;
  team_id: string | null;
  event_type: string;
  received_at: CreatedAt;
}

export interface SecretMapTable {
  organization_id: string;
  environment: string;
  /** The whole name -> value map, encrypted as one AES-256-GCM envelope (the `local` secrets backend). */
  ciphertext: string;
  version: number;
  updated_at: Timestamp;
}

export interface SecretMapRevisionTable {
  organization_id: string;
  environment: string;
  /** Bumped by every write of the gcp backend to the map; replicas compare it with their cached copy (ADR 0005). */
  revision: number;
  updated_at: Timestamp;
}

export interface ScheduleOutboxTable {
  id: Generated<string>;
  organization_id: string;
  monitor_id: string;
  /** Locations the monitor no longer runs in: their schedulers are removed. */
  removed_locations: Json<string[]>;
  created_at: CreatedAt;
}

/** A delivery to hand to the notifications queue once its event committed (docs/adr/0051-notification-outbox.md). */
export interface NotificationOutboxTable {
  id: Generated<string>;
  organization_id: string;
  event_id: string;
  channel_key: string;
  rule_id: string | null;
  created_at: CreatedAt;
}

/** One (organization, monitor, minute, location, environment) of finished runs; see docs/metrics.md. */
export interface RunRollupMinuteTable {
  organization_id: string;
  monitor_id: string;
  minute: Timestamp;
  location: string;
  environment: string;
  run_count: number;
  success_count: number;
  failure_count: number;
  duration_count: number;
  duration_sum_ms: number;
  duration_min_ms: number | null;
  duration_max_ms: number | null;
  /** Log-scale duration bucket index -> runs (sparse). */
  histogram: Json<Record<string, number>>;
  /** Error class -> failed runs. */
  error_classes: Json<Record<string, number>>;
  /**
   * Start of the minute's latest run and its result: the state the time-weighted uptime carries on. A gap marker
   * (no runs, migrations/0016-uptime-known-time.ts) has the gap's slot time and null: no data from then on.
   */
  last_started_at: Timestamp;
  last_success: boolean | null;
}

/** The sums of an hour's minute rollups, per environment and for every environment (''), with uptime. */
export interface RunRollupHourTable {
  organization_id: string;
  monitor_id: string;
  hour: Timestamp;
  environment: string;
  run_count: Generated<number>;
  success_count: Generated<number>;
  failure_count: Generated<number>;
  duration_count: Generated<number>;
  duration_sum_ms: Generated<number>;
  duration_min_ms: number | null;
  duration_max_ms: number | null;
  histogram: Generated<Json<Record<string, number>>>;
  error_classes: Generated<Json<Record<string, number>>>;
  /** The hour's first minute with a result; seconds from then to the hour's end spent up; the last result. */
  first_minute: Timestamp | null;
  up_seconds: Generated<number>;
  /** Seconds from `first_minute` to the end not held by a gap; null on rows summed before 0016 (all known). */
  known_seconds: number | null;
  last_started_at: Timestamp | null;
  /** The last result; null when it was a gap (or on a row not yet computed). */
  last_success: boolean | null;
}

/** The same sums per UTC day (`day`); `first_minute` / `up_seconds` / `last_*` summarize the day. */
export type RunRollupDayTable = Omit<RunRollupHourTable, 'hour'> & { day: Timestamp };

/** One row: every hour before `hours_summed_until` is in `run_rollups_hour`, every whole day before it in the days. */
export interface RollupFoldWatermarkTable {
  id: Generated<boolean>;
  hours_summed_until: Timestamp;
}

/**
 * Per monitor and environment ('' for every environment): its latest finished, successful and failed run. A view
 * (migrations/0024-latest-runs-per-environment.ts): the '' rows are read from the environment rows.
 */
export interface MonitorLatestRunsTable {
  organization_id: string;
  monitor_id: string;
  environment: string;
  last_run_id: string;
  last_run_status: 'completed' | 'failed';
  last_run_success: boolean | null;
  last_run_at: Timestamp;
  last_run_duration_ms: number | null;
  last_run_created_at: Timestamp;
  last_success_at: Timestamp | null;
  last_success_created_at: Timestamp | null;
  last_failure_at: Timestamp | null;
  last_failure_created_at: Timestamp | null;
}

/** A project's public status page switch; see migrations/0010-status-pages.ts. */
export interface StatusPageTable {
  organization_id: string;
  project: string;
  slug: string;
  enabled: boolean;
  updated_at: Timestamp;
}

/** A due slot without a run, and why (docs/adr/0025-slot-ledger.md); see migrations/0012-slot-gaps.ts. */
export interface SlotGapTable {
  organization_id: string;
  monitor_id: string;
  location: string;
  /** The slot's due time in epoch milliseconds, as a run's `schedule_slot`. */
  schedule_slot: string;
  slot_at: Timestamp;
  reason: string;
  recorded_at: Generated<Date>;
  /** When the gap became a marker in the minute rollups (migrations/0016-uptime-known-time.ts); null until then. */
  folded_at: Date | null;
}

/** Gaps ever recorded per location and reason: only ever grows (the `meerkat_slots_missed_total` counter). */
export interface SlotGapTotalTable {
  location: string;
  reason: string;
  /** bigint: node-postgres reads it as a string. */
  total: ColumnType<string, number, number>;
}

/** The slot auditor's progress: slots due at or before `audited_through` were audited. */
export interface SlotAuditCursorTable {
  name: string;
  audited_through: Timestamp;
}

/** A platform admin's quota overrides of one organization (docs/adr/0028); see migrations/0013. */
export interface OrganizationQuotaTable {
  organization_id: string;
  /** The quotas given, by name (QuotaOverrides); absent ones are the QUOTA_* defaults. */
  overrides: Json<Record<string, number>>;
  updated_by: string;
  updated_at: Timestamp;
}

/** Migration 0015: one heartbeat monitor's ping state (docs/adr/0034-heartbeat-monitors.md). */
export interface HeartbeatTable {
  organization_id: string;
  monitor_id: string;
  environment: string;
  /** The monitor's frequency: a ping is expected at least this often. */
  period_seconds: number;
  grace_seconds: number;
  /** SHA-256 (hex) of the ping token; null until one is minted. The token itself is never stored. */
  token_hash: string | null;
  last_ping_at: Timestamp | null;
  /** A `/start` ping not yet followed by its success or failure: the next run's start. */
  started_at: Timestamp | null;
  /** When the current period is missed; null until the first ping. */
  deadline_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface Database {
  monitors: MonitorTable;
  runs: RunTable;
  run_folds: RunFoldTable;
  run_fold_hours: RunFoldHourTable;
  notification_rules: NotificationRuleTable;
  notification_events: NotificationEventTable;
  integrations: IntegrationTable;
  connections: ConnectionTable;
  oauth_transactions: OAuthTransactionTable;
  secret_maps: SecretMapTable;
  schedule_outbox: ScheduleOutboxTable;
  notification_outbox: NotificationOutboxTable;
  secret_map_revisions: SecretMapRevisionTable;
  run_rollups_minute: RunRollupMinuteTable;
  run_rollups_hour: RunRollupHourTable;
  run_rollups_day: RunRollupDayTable;
  rollup_fold_watermark: RollupFoldWatermarkTable;
  monitor_latest_runs: MonitorLatestRunsTable;
  monitor_environment_latest_runs: MonitorLatestRunsTable;
  slack_events: SlackEventTable;
  status_pages: StatusPageTable;
  slot_gaps: SlotGapTable;
  slot_gap_totals: SlotGapTotalTable;
  slot_audit_cursors: SlotAuditCursorTable;
  silences: SilenceTable;
  maintenance_windows: MaintenanceWindowTable;
  organization_quotas: OrganizationQuotaTable;
  heartbeats: HeartbeatTable;
}
