import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { RunRollupDayTable, RunRollupHourTable } from '../db/tables.js';
import { hourPieces } from './day-rollup.repository.js';
import { minutePieces } from './hour-rollup.repository.js';
import { HOURS_SUMMED_UNTIL } from './rollup-fold.repository.js';
import { DAY_TIER, HOUR_TIER, TIER_COLUMNS, tierRows } from './rollup-tier.repository.js';

/** Which hour or day rows a reader wants: one organization, one environment ('' for all), maybe some monitors. */
export interface TierScope {
  organizationId: string;
  environment: string;
  /** Only these monitors (one, or a list); all the organization's when absent. */
  monitorIds?: readonly string[] | undefined;
  /** Rows from the one containing this time on (a reader still filters its exact range). */
  since?: Date | undefined;
}

const DAY_OF_WATERMARK = sql`date_bin('1 day', ${HOURS_SUMMED_UNTIL}, timestamptz 'epoch')`;

const sinceOf = (scope: TierScope) =>
  scope.since === undefined ? sql`timestamptz 'epoch'` : sql`${scope.since}::timestamptz`;

function scopeFilter(alias: string, scope: TierScope): RawBuilder<unknown> {
  const ref = (column: string) => sql.ref(`${alias}.${column}`);
  return sql`${ref('organization_id')} = ${scope.organizationId}
    ${scope.monitorIds === undefined ? sql`` : sql`and ${ref('monitor_id')} = any(${[...scope.monitorIds]}::text[])`}`;
}

/**
 * The hour rows as they would be had every result added itself to its hour (as before ADR 0062): the summed rows
 * before the watermark, and later hours summed from their minutes in the same statement (so in one snapshot
 * with the watermark), in parentheses, to select from. Columns as `run_rollups_hour`'s.
 */
export function liveHourRows(scope: TierScope): RawBuilder<Selectable<RunRollupHourTable>> {
  return liveHours(scope, sinceOf(scope));
}

/** The hour rows from the hour of `since` on: columns as `run_rollups_hour`'s. */
function liveHours(scope: TierScope, since: RawBuilder<unknown>): RawBuilder<Selectable<RunRollupHourTable>> {
  const fromHour = sql`date_bin('1 hour', ${since}, timestamptz 'epoch')`;
  return sql<Selectable<RunRollupHourTable>>`(
    select h.organization_id, h.monitor_id, h.hour, h.environment, ${TIER_COLUMNS} from run_rollups_hour h
    where h.hour < ${HOURS_SUMMED_UNTIL} and h.hour >= ${fromHour} and h.environment = ${scope.environment}
      and ${scopeFilter('h', scope)}
    union all (${tierRows(
      HOUR_TIER,
      minutePieces(sql`r.minute >= ${HOURS_SUMMED_UNTIL} and r.minute >= ${fromHour}
        and e.environment = ${scope.environment} and ${scopeFilter('r', scope)}`),
    )}))`;
}

/**
 * The day rows as readers see them: the whole days before the watermark's day as summed, and from that day on
 * summed from the hours as `liveHourRows` gives them, in parentheses. Columns as `run_rollups_day`'s.
 */
export function liveDayRows(scope: TierScope): RawBuilder<Selectable<RunRollupDayTable>> {
  const fromDay = sql`date_bin('1 day', ${sinceOf(scope)}, timestamptz 'epoch')`;
  const hours = liveHours(scope, sql`greatest(${DAY_OF_WATERMARK}, ${fromDay})`);
  return sql<Selectable<RunRollupDayTable>>`(
    select d.organization_id, d.monitor_id, d.day, d.environment, ${TIER_COLUMNS} from run_rollups_day d
    where d.day < ${DAY_OF_WATERMARK} and d.day >= ${fromDay} and d.environment = ${scope.environment}
      and ${scopeFilter('d', scope)}
    union all (${tierRows(DAY_TIER, hourPieces(sql`true`, hours))}))`;
}
