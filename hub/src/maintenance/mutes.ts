import type { Executor } from '../db/database.js';
import type { HeldBy } from '../db/tables.js';
import { listWindows, type MaintenanceWindowRow } from './maintenance-window.repository.js';
import { monitorLabelsOf } from './monitor-labels.repository.js';
import { matchesAll, type RunLabels } from './run-matchers.js';
import { listSilencesInForce, type SilenceRow } from './silence.repository.js';
import { occurrenceAt } from './window-schedule.js';

/** A run as the mute lookup sees it: who it belongs to, where it ran and when. */
export interface MutableRun {
  organizationId: string;
  monitorId: string;
  environment: string;
  location: string;
  at: Date;
}

/** What holds a run at its time: the silence or window holding its notifications, the windows over it. */
export interface Mute {
  /** The first silence (by id), else the first window (by name), holding the run's notifications. */
  heldBy: HeldBy;
  /** The run counts in no figure: a window over it says so. */
  excludedFromFigures: boolean;
  /** Every maintenance window over the run (the metrics show them). */
  windows: MaintenanceWindowRow[];
}

export interface MuteLookup {
  muteOf(run: MutableRun): Mute | undefined;
}

const NOTHING_MUTED: MuteLookup = { muteOf: () => undefined };

/**
 * Reads the silences and maintenance windows of the runs' organizations once, then answers for each run. Most
 * writes find none and cost one query each for silences and windows; monitor names and projects are read only
 * when something could match.
 */
export async function lookUpMutes(db: Executor, runs: readonly MutableRun[]): Promise<MuteLookup> {
  if (runs.length === 0) return NOTHING_MUTED;
  const organizations = [...new Set(runs.map((run) => run.organizationId))];
  const times = runs.map((run) => run.at.getTime());
  const during = { from: new Date(Math.min(...times)), to: new Date(Math.max(...times)) };
  const [silences, windows] = await Promise.all([
    listSilencesInForce(db, organizations, during),
    listWindows(db, organizations),
  ]);
  if (silences.length === 0 && windows.length === 0) return NOTHING_MUTED;
  const labels = await monitorLabelsOf(db, runs);
  return {
    muteOf(run) {
      const monitor = labels.get(`${run.organizationId}/${run.monitorId}`);
      if (monitor === undefined) return undefined;
      const runLabels: RunLabels = {
        monitor: monitor.name,
        monitorId: run.monitorId,
        project: monitor.project,
        environment: run.environment,
        location: run.location,
      };
      const applies = (row: SilenceRow | MaintenanceWindowRow) =>
        row.organization_id === run.organizationId && matchesAll(row.matchers, runLabels);
      const silence = silences.find((s) => applies(s) && s.starts_at <= run.at && run.at < s.ends_at);
      const over = windows.filter((w) => applies(w) && occurrenceAt(w.schedule, run.at) !== undefined);
      const first = over[0];
      if (silence === undefined && first === undefined) return undefined;
      return {
        heldBy:
          silence !== undefined
            ? { kind: 'silence', id: silence.id }
            : { kind: 'maintenance', id: (first as MaintenanceWindowRow).id },
        excludedFromFigures: over.some((w) => w.exclude_from_figures),
        windows: over,
      };
    },
  };
}
