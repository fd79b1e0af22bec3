import type { MonitorDefinition } from '../contract/monitor-definition.js';
import type { FieldIssue } from '../http/errors.js';
import type { EgressPolicies } from './egress-policies.js';
import type { EgressPolicy } from './egress-policy.js';
import { egressIssueOfHost, egressIssueOfUrl } from './egress-validation.js';

type Node = MonitorDefinition['nodes'][number];

/** The literal addresses a node connects to as written, with the field that names each. */
function issueOfNode(policy: EgressPolicy, node: Node, path: string) {
  switch (node.type) {
    case 'HTTP_REQUEST':
      return typeof node.base === 'string' ? egressIssueOfUrl(policy, node.base, `${path}.base`) : undefined;
    case 'TCP_CONNECT':
    case 'GRPC_HEALTH_CHECK':
      return egressIssueOfHost(policy, node.host, node.port, `${path}.host`);
    case 'DNS_QUERY':
      return node.resolver === undefined
        ? undefined
        : egressIssueOfHost(policy, node.resolver, node.resolver_port ?? 53, `${path}.resolver`);
    default:
      return undefined;
  }
}

/**
 * The `base` of every HTTP_REQUEST node (the `host` of a TCP or gRPC node, a DNS node's `resolver`) that the policy of a location the monitor runs
 * in refuses as written (an address literal, a denied name). A `base` that is a `$secret` is known only at run
 * time, where the connection check still applies.
 */
export function monitorEgressIssues(
  definition: MonitorDefinition,
  egress: Pick<EgressPolicies, 'forLocation'>,
): FieldIssue[] {
  const locations = definition.locations ?? ['default'];
  return definition.nodes.flatMap((node, index) => {
    for (const location of locations) {
      const issue = issueOfNode(egress.forLocation(location), node, `nodes[${index}]`);
      if (issue === undefined) continue;
      return [
        locations.length > 1 ? { ...issue, message: `${issue.message} in location ${location}` } : issue,
      ];
    }
    return [];
  });
}
