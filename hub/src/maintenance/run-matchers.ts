import type { Matcher, MatcherLabel } from '../contract/maintenance-definition.js';

/** The labels of a run that silences and maintenance windows match on. */
export type RunLabels = Record<MatcherLabel, string>;

/** True when every matcher matches: `=` a label equal to one of its values, `!=` one equal to none. */
export function matchesAll(matchers: readonly Matcher[], labels: RunLabels): boolean {
  return matchers.every(
    (matcher) => matcher.values.includes(labels[matcher.label]) === (matcher.operator === '='),
  );
}

/** True when `matchers` match the monitor's runs in at least one of its locations. */
export function matchesMonitor(
  matchers: readonly Matcher[],
  monitor: { id: string; name: string; project: string; environment: string; locations: readonly string[] },
): boolean {
  return monitor.locations.some((location) =>
    matchesAll(matchers, {
      monitor: monitor.name,
      monitorId: monitor.id,
      project: monitor.project,
      environment: monitor.environment,
      location,
    }),
  );
}
