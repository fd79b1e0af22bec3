import type { MonitorDefinition } from '../contract/monitor-definition.js';
import type { FieldIssue } from '../http/errors.js';
import type { EgressPolicies } from './egress-policies.js';
import { egressIssueOfUrl } from './egress-validation.js';

/**
 * The `base` of every HTTP_REQUEST node whose host the policy of a location the monitor runs in refuses as
 * written (an address literal, a denied name). A `base` that is a `$secret` is known only at run time, where the
 * connection check still applies.
 */
export function monitorEgressIssues(
  definition: MonitorDefinition,
  egress: Pick<EgressPolicies, 'forLocation'>,
): FieldIssue[] {
  const locations = definition.locations ?? ['default'];
  return definition.nodes.flatMap((node, index) => {
    if (node.type !== 'HTTP_REQUEST' || typeof node.base !== 'string') return [];
    const path = `nodes[${index}].base`;
    for (const location of locations) {
      const issue = egressIssueOfUrl(egress.forLocation(location), node.base, path);
      if (issue === undefined) continue;
      return [locations.length > 1 ? { path, message: `${issue.message} in location ${location}` } : issue];
    }
    return [];
  });
}
