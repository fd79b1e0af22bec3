import type { Migration } from 'kysely';
import * as initialSchema from './0001-initial-schema.js';
import * as secretMapRevisions from './0002-secret-map-revisions.js';
import * as scheduleOutbox from './0003-schedule-outbox.js';
import * as metricsRollups from './0004-metrics-rollups.js';
import * as slackEvents from './0005-slack-events.js';
import * as metricsHourlyRollups from './0006-metrics-hourly-rollups.js';
import * as metricsDailyRollups from './0007-metrics-daily-rollups.js';
import * as monitorLatestRuns from './0008-monitor-latest-runs.js';
import * as partitionedRuns from './0009-partitioned-runs.js';
import * as statusPages from './0010-status-pages.js';
import * as partitionedMinuteRollups from './0011-partitioned-minute-rollups.js';
import * as slotGaps from './0012-slot-gaps.js';
import * as organizationQuotas from './0013-organization-quotas.js';
import * as silencesAndMaintenance from './0014-silences-and-maintenance.js';
import * as heartbeats from './0015-heartbeats.js';
import * as uptimeKnownTime from './0016-uptime-known-time.js';
import * as runDetailsCompaction from './0017-run-details-compaction.js';
import * as notificationOutbox from './0018-notification-outbox.js';
import * as narrowerRunIndexes from './0019-narrower-run-indexes.js';
import * as roomForRollupUpdates from './0020-room-for-rollup-updates.js';
import * as runFolds from './0021-run-folds.js';
import * as hourRollupsFromMinutes from './0022-hour-rollups-from-minutes.js';
import * as narrowerCompactionCandidates from './0023-narrower-compaction-candidates.js';
import * as latestRunsPerEnvironment from './0024-latest-runs-per-environment.js';
import * as foldHours from './0025-fold-hours.js';

/**
 * Every migration, in order. Listed in code rather than read from a folder so the same list runs from the
 * TypeScript sources, the compiled image and PGlite alike. Names sort in the order they apply.
 */
export const migrations: Record<string, Migration> = {
  '0001-initial-schema': initialSchema,
  '0002-secret-map-revisions': secretMapRevisions,
  '0003-schedule-outbox': scheduleOutbox,
  '0004-metrics-rollups': metricsRollups,
  '0005-slack-events': slackEvents,
  '0006-metrics-hourly-rollups': metricsHourlyRollups,
  '0007-metrics-daily-rollups': metricsDailyRollups,
  '0008-monitor-latest-runs': monitorLatestRuns,
  '0009-partitioned-runs': partitionedRuns,
  '0010-status-pages': statusPages,
  '0011-partitioned-minute-rollups': partitionedMinuteRollups,
  '0012-slot-gaps': slotGaps,
  '0013-organization-quotas': organizationQuotas,
  '0014-silences-and-maintenance': silencesAndMaintenance,
  '0015-heartbeats': heartbeats,
  '0016-uptime-known-time': uptimeKnownTime,
  '0017-run-details-compaction': runDetailsCompaction,
  '0018-notification-outbox': notificationOutbox,
  '0019-narrower-run-indexes': narrowerRunIndexes,
  '0020-room-for-rollup-updates': roomForRollupUpdates,
  '0021-run-folds': runFolds,
  '0022-hour-rollups-from-minutes': hourRollupsFromMinutes,
  '0023-narrower-compaction-candidates': narrowerCompactionCandidates,
  '0024-latest-runs-per-environment': latestRunsPerEnvironment,
  '0025-fold-hours': foldHours,
};
