import { createEgressPolicy, type EgressPolicy } from './egress-policy.js';
import {
  EGRESS_LIST_NAMES,
  EGRESS_SETTING_OF,
  egressListsOf,
  type EgressLists,
  type EgressOverride,
  type EgressSettings,
} from './egress-rules.js';
import type { OwnEndpoint } from './own-endpoints.js';

/** The egress policy of each location, and the one of what is not tied to a location (notifications). */
export interface EgressPolicies {
  readonly global: EgressPolicy;
  /** The location's policy: the global one unless its LOCATIONS entry carries an `egress` override. */
  forLocation(name: string): EgressPolicy;
  /** The lists in force for a location as EGRESS_* variables: what a runner Job of that location is given. */
  environmentFor(name: string): Array<{ name: string; value: string }>;
}

export interface EgressPoliciesOptions {
  lists: EgressLists;
  locations?: ReadonlyArray<{ name: string; egress?: EgressOverride | undefined }>;
  allowLoopback?: boolean;
  ownPorts?: readonly number[];
  ownEndpoints?: readonly OwnEndpoint[];
}

export function createEgressPolicies(options: EgressPoliciesOptions): EgressPolicies {
  const ownEndpoints = options.ownEndpoints ?? [];
  const base = {
    allowLoopback: options.allowLoopback ?? false,
    ownPorts: options.ownPorts ?? [],
    ownEndpoints,
  };
  // A runner Job is a process of the release too: it is told the same endpoints.
  const endpointsEnvironment =
    ownEndpoints.length === 0
      ? []
      : [{ name: 'MEERKAT_ENDPOINTS', value: ownEndpoints.map((endpoint) => endpoint.entry).join(',') }];
  const global = createEgressPolicy({ ...base, lists: options.lists });
  const perLocation = new Map<string, { policy: EgressPolicy; lists: EgressLists }>();
  for (const location of options.locations ?? []) {
    const override = location.egress;
    if (override === undefined) continue;
    const overridden = EGRESS_LIST_NAMES.filter((name) => override[name] !== undefined);
    const lists = { ...options.lists, ...override };
    const sources = Object.fromEntries(
      overridden.map((name) => [name, `LOCATIONS ${location.name} egress.${name}`]),
    );
    perLocation.set(location.name, { policy: createEgressPolicy({ ...base, lists, sources }), lists });
  }
  return {
    global,
    forLocation: (name) => perLocation.get(name)?.policy ?? global,
    environmentFor(name) {
      const lists = perLocation.get(name)?.lists ?? options.lists;
      const listEnvironment = EGRESS_LIST_NAMES.flatMap((list) => {
        const entries = lists[list] ?? [];
        return entries.length === 0 ? [] : [{ name: EGRESS_SETTING_OF[list], value: entries.join(',') }];
      });
      return [...listEnvironment, ...endpointsEnvironment];
    },
  };
}

/**
 * The policies of a process from its settings. Loopback is allowed only in `meerkat dev`; the process's own
 * ports and every MEERKAT_ENDPOINTS entry are refused everywhere, so a monitor cannot read Meerkat itself.
 */
export function egressPoliciesOf(
  settings: Readonly<
    EgressSettings & {
      LOCATIONS: NonNullable<EgressPoliciesOptions['locations']>;
      PORT: number;
      METRICS_PORT: number;
      processKind: string;
    }
  >,
): EgressPolicies {
  return createEgressPolicies({
    lists: egressListsOf(settings),
    locations: settings.LOCATIONS,
    allowLoopback: settings.processKind === 'dev',
    ownPorts: [settings.PORT, settings.METRICS_PORT],
    ownEndpoints: settings.MEERKAT_ENDPOINTS,
  });
}
