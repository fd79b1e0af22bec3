// Whether the rendered NetworkPolicies let one Pod open a TCP connection to a port of another, decided as the
// NetworkPolicy API defines it (a plugin that enforces it does the same): a Pod selected by no policy of a
// direction is open in that direction; otherwise some rule of a selecting policy must admit the peer and port.
import type { KubeObject } from './render-chart.js';

interface Peer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  to?: Peer[];
  from?: Peer[];
  ports?: Array<{ port?: number | string }>;
}
type Policy = KubeObject & {
  spec: { podSelector: { matchLabels?: Record<string, string> }; ingress?: Rule[]; egress?: Rule[] };
};

/** A Pod as the policies see it; `ports` maps its named container ports to numbers. */
export interface PodEnd {
  namespace: string;
  labels: Record<string, string>;
  ip: string;
  ports?: Record<string, number>;
}

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);

const ipv4 = (address: string) => address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
function inCidr(address: string, cidr: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/');
  if (base.includes(':') || address.includes(':'))
    return base.includes(':') === address.includes(':') && bits === '0';
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipv4(address) / size) === Math.floor(ipv4(base) / size);
}

function peerMatches(peer: Peer, policyNamespace: string, pod: PodEnd): boolean {
  if (peer.ipBlock !== undefined)
    return inCidr(pod.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c) => inCidr(pod.ip, c));
  const namespaceLabels = { 'kubernetes.io/metadata.name': pod.namespace };
  const namespaceOk =
    peer.namespaceSelector === undefined
      ? pod.namespace === policyNamespace
      : matches(peer.namespaceSelector.matchLabels, namespaceLabels);
  return namespaceOk && matches(peer.podSelector?.matchLabels, pod.labels);
}

function portMatches(rule: Rule, port: number, target: PodEnd): boolean {
  if (rule.ports === undefined || rule.ports.length === 0) return true;
  return rule.ports.some((p) => (typeof p.port === 'string' ? target.ports?.[p.port] : p.port) === port);
}

function admitted(
  policies: Policy[],
  releaseNamespace: string,
  selected: PodEnd,
  direction: 'ingress' | 'egress',
  peer: PodEnd,
  port: number,
  portOwner: PodEnd,
): boolean {
  const governing = policies.filter(
    (p) =>
      (p.metadata.namespace ?? releaseNamespace) === selected.namespace &&
      matches(p.spec.podSelector.matchLabels, selected.labels),
  );
  if (governing.length === 0) return true;
  return governing.some((policy) =>
    (policy.spec[direction] ?? []).some((rule) => {
      const peers = direction === 'ingress' ? rule.from : rule.to;
      const namespace = policy.metadata.namespace ?? releaseNamespace;
      const peerOk = peers === undefined || peers.some((p) => peerMatches(p, namespace, peer));
      return peerOk && portMatches(rule, port, portOwner);
    }),
  );
}

/** Whether `from` may connect to `to` on `port` (a number, or a named port of `to`). */
export function canReach(
  objects: KubeObject[],
  releaseNamespace: string,
  from: PodEnd,
  to: PodEnd,
  port: number | string,
): boolean {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy') as Policy[];
  const number = typeof port === 'number' ? port : to.ports?.[port];
  if (number === undefined) throw new Error(`no port ${port} on the target`);
  return (
    admitted(policies, releaseNamespace, from, 'egress', to, number, to) &&
    admitted(policies, releaseNamespace, to, 'ingress', from, number, to)
  );
}
