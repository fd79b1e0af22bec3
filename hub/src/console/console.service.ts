import { randomBytes } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import { permissionsOf } from '../auth/permissions.js';
import type {
  MonitorHourlyRuns,
  PrincipalSummary,
  PublicStatusPage,
  StatusPage,
  UptimeDay,
} from '../contract/console.js';
import type { Db } from '../db/database.js';
import { NotFoundError } from '../http/errors.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { rowHealth } from '../metrics/row-health.js';
import { DAY_MS, dayOf, HOUR_MS, hourOf } from '../metrics/time-buckets.js';
import type { Clock } from '../system/clock.js';
import { findMonitor } from '../monitors/monitor.repository.js';
import { windowsAheadOf } from '../maintenance/maintenance-ahead.js';
import {
  listFailingHours,
  listHourCounts,
  listMonitorProjects,
  listUptimeDays,
} from './console-figures.repository.js';
import { incidentsOf } from './status-incidents.js';
import {
  findEnabledStatusPageBySlug,
  findStatusPage,
  listProjectMonitors,
  upsertStatusPage,
  type StatusPageRow,
} from './status-page.repository.js';

const STATUS_PAGE_DAYS = 90;

export interface ConsoleServiceDeps {
  db: Db;
  clock: Clock;
  metrics: MetricsService;
}

const statusPageOf = (row: StatusPageRow): StatusPage => ({
  project: row.project,
  enabled: row.enabled,
  slug: row.slug,
  updatedAt: row.updated_at.toISOString(),
});

export function createConsoleService({ db, clock, metrics }: ConsoleServiceDeps) {
  /** `days` UTC days ending today, oldest first; a day without a rollup row has no runs. */
  async function uptimeDaysOf(organizationId: string, monitorIds: string[], days: number) {
    const today = dayOf(clock.now());
    const since = new Date(today.getTime() - (days - 1) * DAY_MS);
    const rows = await listUptimeDays(db, organizationId, monitorIds, since, clock.now());
    const byKey = new Map(rows.map((r) => [`${r.monitorId} ${r.day.getTime()}`, r]));
    return (monitorId: string): UptimeDay[] =>
      Array.from({ length: days }, (_, i) => {
        const day = new Date(since.getTime() + i * DAY_MS);
        const row = byKey.get(`${monitorId} ${day.getTime()}`);
        return {
          day: day.toISOString().slice(0, 10),
          uptimePercent: row?.uptimePercent ?? null,
          knownSeconds: row?.knownSeconds ?? 0,
          runs: row?.runs ?? 0,
          failures: row?.failures ?? 0,
        };
      });
  }

  return {
    principal(principal: Principal): PrincipalSummary {
      return {
        organizationId: principal.organizationId,
        role: principal.role,
        permissions: permissionsOf(principal.role),
      };
    },

    async uptimeDays(organizationId: string, monitorId: string, days: number): Promise<UptimeDay[]> {
      if ((await findMonitor(db, organizationId, monitorId)) === undefined)
        throw new NotFoundError(`monitor ${monitorId} not found`);
      return (await uptimeDaysOf(organizationId, [monitorId], days))(monitorId);
    },

    async hourlyRuns(organizationId: string, hours: number): Promise<MonitorHourlyRuns[]> {
      const since = new Date(hourOf(clock.now()).getTime() - (hours - 1) * HOUR_MS);
      const [monitors, counts] = await Promise.all([
        listMonitorProjects(db, organizationId),
        listHourCounts(db, organizationId, since),
      ]);
      const byMonitor = new Map(
        monitors.map(({ monitorId, project }): [string, MonitorHourlyRuns] => [
          monitorId,
          { monitorId, project, hours: [] },
        ]),
      );
      // An hour of a monitor deleted between the two reads has no monitor left to show it.
      for (const { monitorId, hour, runs, failures } of counts)
        byMonitor.get(monitorId)?.hours.push({ hour: hour.toISOString(), runs, failures });
      return [...byMonitor.values()];
    },

    async statusPage(organizationId: string, project: string): Promise<StatusPage> {
      const row = await findStatusPage(db, organizationId, project);
      if (row === undefined) throw new NotFoundError(`project ${project} has no status page`);
      return statusPageOf(row);
    },

    async switchStatusPage(organizationId: string, project: string, enabled: boolean): Promise<StatusPage> {
      const newSlug = randomBytes(18).toString('base64url');
      const row = await upsertStatusPage(db, { organizationId, project, enabled, newSlug, at: clock.now() });
      return statusPageOf(row);
    },

    /**
     * Names, health, uptime bars, incidents and maintenance of a published page; an unknown slug and a switched-off
     * page are alike 404.
     */
    async publicStatusPage(slug: string): Promise<PublicStatusPage> {
      const page = await findEnabledStatusPageBySlug(db, slug);
      if (page === undefined) throw new NotFoundError('no such status page');
      const org = page.organization_id;
      const monitors = await listProjectMonitors(db, org, page.project);
      const ids = monitors.map((m) => m.id);
      const now = clock.now();
      const [daysOf, rows, failingHours, windows] = await Promise.all([
        uptimeDaysOf(org, ids, STATUS_PAGE_DAYS),
        metrics.rows(org, { period: '24h' }),
        listFailingHours(db, org, ids, new Date(dayOf(now).getTime() - (STATUS_PAGE_DAYS - 1) * DAY_MS)),
        windowsAheadOf(db, org, ids, now),
      ]);
      // "unknown" where the console says "no data": no run in the period (rowHealth).
      const health = new Map(
        rows.map((r) => {
          const shown = rowHealth(r, '24h', now.getTime());
          return [r.monitorId, shown === 'no_data' ? ('unknown' as const) : shown];
        }),
      );
      const names = new Map(monitors.map((m) => [m.id, m.name]));
      return {
        project: page.project,
        monitors: monitors.map((m) => ({
          name: m.name,
          // A monitor saved after the metrics rows were read is not among them yet.
          status: health.get(m.id) ?? 'unknown',
          days: daysOf(m.id).map(({ day, uptimePercent }) => ({ day, uptimePercent })),
        })),
        incidents: incidentsOf(failingHours, {
          nameOf: (id) => names.get(id),
          failingNow: (id) => health.get(id) === 'failing',
        }),
        maintenance: windows.flatMap(({ name, current, next, monitorIds }) => {
          const occurrence = current ?? next;
          if (occurrence === undefined) return [];
          return [
            {
              name,
              start: occurrence.start.toISOString(),
              end: occurrence.end.toISOString(),
              active: current !== undefined,
              monitors: monitorIds.flatMap((id) => names.get(id) ?? []),
            },
          ];
        }),
      };
    },
  };
}
export type ConsoleService = ReturnType<typeof createConsoleService>;
