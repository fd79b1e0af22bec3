import type { BlockList } from 'node:net';
import { EGRESS_SETTING_OF, type EgressListName, type EgressLists } from './egress-rules.js';
import { addressInList, blockListOf, judgedAddress, type JudgedAddress } from './ip-address.js';
import { createOwnEndpointCheck, type OwnEndpoint } from './own-endpoints.js';

/** What the policy says about one connection; a refusal names the rule, as the run's error quotes it. */
export type EgressVerdict = { allowed: true } | { allowed: false; subject: string; rule: string };

/** A connection the egress policy refused; the message is what a run, a delivery or a 400 shows. */
class EgressDeniedError extends Error {
  readonly code = 'EGRESS_DENIED';
  constructor(
    readonly subject: string,
    readonly rule: string,
  ) {
    super(`egress policy denies ${subject} (rule: ${rule})`);
    this.name = new.target.name;
  }
}

export function deniedError(verdict: Extract<EgressVerdict, { allowed: false }>): EgressDeniedError {
  return new EgressDeniedError(verdict.subject, verdict.rule);
}

export interface EgressTarget {
  /** The host name as written; absent when the target is an IP address. */
  host?: string;
  /** The address about to be connected to: the literal, or one the name resolved to. */
  address?: string;
  port: number;
}

export interface EgressPolicy {
  evaluate(target: EgressTarget): EgressVerdict;
}

export interface EgressPolicyOptions {
  lists?: EgressLists;
  /** Where each list came from, for rule names; default the EGRESS_* setting of the list. */
  sources?: Partial<Record<EgressListName, string>>;
  /** `meerkat dev` and `meerkat test` run on a laptop, where the targets are often local servers. */
  allowLoopback?: boolean;
  /** The ports this process (or the hub beside it) listens on: refused on this host's own addresses. */
  ownPorts?: readonly number[];
  /** The endpoints of the release's other processes (MEERKAT_ENDPOINTS): refused like ownPorts, and more. */
  ownEndpoints?: readonly OwnEndpoint[];
  /** This host's addresses; default every address of its network interfaces. */
  ownAddresses?: readonly string[];
}

interface AddressRule {
  list: BlockList;
  rule: string;
}

interface HostRule {
  pattern: string;
  rule: string;
}

// Cloud metadata services hand out credentials to whoever asks from inside the machine.
const DEFAULT_DENIED_ADDRESSES: Array<[string, string]> = [
  ['169.254.0.0/16', 'default deny link-local'],
  ['fe80::/10', 'default deny link-local'],
  ['fd00:ec2::254/128', 'default deny metadata'],
];
const LOOPBACK_ADDRESSES: Array<[string, string]> = [
  ['127.0.0.0/8', 'default deny loopback'],
  ['::1/128', 'default deny loopback'],
  // A connection to 0.0.0.0 or :: reaches this host itself.
  ['0.0.0.0/8', 'default deny this host'],
  ['::/128', 'default deny this host'],
];
const DEFAULT_DENIED_HOSTS: Array<[string, string]> = [['metadata.google.internal', 'default deny metadata']];

const addressRule = (cidr: string, label: string): AddressRule => ({
  list: blockListOf(cidr),
  rule: `${label} ${cidr}`,
});

const normalizeHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

function hostMatches(pattern: string, host: string): boolean {
  return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern;
}

/** The entries of one configured list, each with the rule name an error quotes (`EGRESS_DENY_CIDRS 10.0.0.0/8`). */
function configuredRules(options: EgressPolicyOptions, name: EgressListName) {
  const source = options.sources?.[name] ?? EGRESS_SETTING_OF[name];
  return (options.lists?.[name] ?? []).map((entry) => ({ entry, rule: `${source} ${entry}` }));
}

/**
 * The egress policy of docs/egress.md. Order: Meerkat's own endpoints (this process's ports and MEERKAT_ENDPOINTS) are always refused; then an allow
 * rule (a host in EGRESS_ALLOW_HOSTS, an address in EGRESS_ALLOW_CIDRS) lets the connection through, as an
 * exception to every deny; then the deny rules (configured and default) refuse it; anything else is allowed.
 */
export function createEgressPolicy(options: EgressPolicyOptions = {}): EgressPolicy {
  const hostRules = (name: EgressListName): HostRule[] =>
    configuredRules(options, name).map(({ entry, rule }) => ({ pattern: entry, rule }));
  const addressRules = (name: EgressListName): AddressRule[] =>
    configuredRules(options, name).map(({ entry, rule }) => ({ list: blockListOf(entry), rule }));
  const allowHosts = hostRules('allowHosts');
  const denyHosts: HostRule[] = [
    ...DEFAULT_DENIED_HOSTS.map(([pattern, label]) => ({ pattern, rule: `${label} host ${pattern}` })),
    ...hostRules('denyHosts'),
  ];
  const allowAddresses = addressRules('allowCidrs');
  const denyAddresses: AddressRule[] = [
    ...DEFAULT_DENIED_ADDRESSES.map(([cidr, label]) => addressRule(cidr, label)),
    ...(options.allowLoopback === true ? [] : LOOPBACK_ADDRESSES.map(([cidr, l]) => addressRule(cidr, l))),
    ...addressRules('denyCidrs'),
  ];
  const ownEndpoint = createOwnEndpointCheck({
    ownPorts: options.ownPorts ?? [],
    endpoints: options.ownEndpoints ?? [],
    ...(options.ownAddresses === undefined ? {} : { ownAddresses: options.ownAddresses }),
  });

  const inRule = (address: JudgedAddress | undefined) => (rule: AddressRule) =>
    address !== undefined && addressInList(rule.list, address);

  return {
    evaluate({ host: rawHost, address: rawAddress, port }) {
      const host = rawHost === undefined ? undefined : normalizeHost(rawHost);
      const address = rawAddress === undefined ? undefined : judgedAddress(rawAddress);
      const subject = rawAddress ?? host ?? '';
      const own = ownEndpoint({ host, address, subject, port });
      if (own !== undefined) return { allowed: false, ...own };
      if (host !== undefined && allowHosts.some((rule) => hostMatches(rule.pattern, host)))
        return { allowed: true };
      if (allowAddresses.some(inRule(address))) return { allowed: true };
      const hostRule = host === undefined ? undefined : denyHosts.find((r) => hostMatches(r.pattern, host));
      if (hostRule !== undefined) return { allowed: false, subject: host ?? '', rule: hostRule.rule };
      const addressRuleHit = denyAddresses.find(inRule(address));
      if (addressRuleHit !== undefined) return { allowed: false, subject, rule: addressRuleHit.rule };
      return { allowed: true };
    },
  };
}
