import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { deniedError, type EgressPolicy, type EgressTarget } from './egress-policy.js';

// Enforcement happens where the address is chosen, not where the URL is read: names (and the names of every
// redirect hop) are judged on what they resolve to, just before the socket connects to exactly that address,
// so neither DNS nor a redirect can route around the policy. A name whose answer holds any denied address is
// refused outright rather than filtered: such an answer is a mistake or a rebinding attempt, and a filtered one
// would make the run depend on which records the resolver happened to return.

/**
 * The port of the connection being opened: net calls a `lookup` hook without it, synchronously inside
 * `net.connect` and `tls.connect`, so it is set around that call (`guardConnect`). Not an AsyncLocalStorage: one
 * would turn on Node's promise hooks for every promise of the process (docs/adr/0084).
 */
let connectingPort: number | undefined;

type LookupAllCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

type Resolve = (host: string, options: LookupAllOptions, callback: LookupAllCallback) => void;

/**
 * A `lookup` hook for net.connect that resolves the name (with `resolve`, default dns.lookup) and refuses the
 * answer when the policy denies any address in it.
 */
export function egressLookup(policy: EgressPolicy, resolve: Resolve = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    const port = connectingPort;
    const reply = callback as unknown as (error: Error | null, ...result: unknown[]) => void;
    if (port === undefined) {
      process.nextTick(() => reply(new Error(`egress lookup of ${hostname} outside a guarded connection`)));
      return;
    }
    const all: LookupAllOptions = { ...options, all: true };
    resolve(hostname, all, (error, addresses) => {
      if (error !== null) return reply(error);
      for (const { address } of addresses) {
        const verdict = policy.evaluate({ host: hostname, address, port });
        if (!verdict.allowed) return reply(deniedError(verdict));
      }
      const [first] = addresses;
      if (options.all === true) return reply(null, addresses);
      if (first === undefined)
        return reply(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
      return reply(null, first.address, first.family);
    });
  };
}

/** What is known before any lookup: the name against the host rules, or the address literal itself. */
function preConnectTarget(hostname: string, port: number): EgressTarget {
  return isIP(hostname) === 0 ? { host: hostname, port } : { address: hostname, port };
}

/** Runs `connect` with the policy checked first on the literal or name, then on every address it resolves to. */
export function guardConnect<T>(
  policy: EgressPolicy,
  hostname: string,
  port: number,
  connect: () => T,
): { denied: Error } | { result: T } {
  const verdict = policy.evaluate(preConnectTarget(hostname, port));
  if (!verdict.allowed) return { denied: deniedError(verdict) };
  const outer = connectingPort;
  connectingPort = port;
  try {
    return { result: connect() };
  } finally {
    connectingPort = outer;
  }
}

/**
 * The address to send datagrams to `host:port` (a DNS resolver a monitor names), judged as a connection is: the
 * name or literal first, then every address the name resolves to. Rejects with the EgressDeniedError.
 */
export function lookupUnderEgress(
  policy: EgressPolicy,
  host: string,
  port: number,
): Promise<{ address: string; family: number }> {
  return new Promise((resolve, reject) => {
    const lookup = egressLookup(policy);
    const guarded = guardConnect(policy, host, port, () => {
      if (isIP(host) !== 0) return resolve({ address: host, family: isIP(host) });
      lookup(host, {}, (error, address, family) =>
        error ? reject(error) : resolve({ address: address as string, family: family ?? 4 }),
      );
    });
    if ('denied' in guarded) reject(guarded.denied);
  });
}

/**
 * An undici connector under the egress policy: `build` (undici's buildConnector, or the runner's timed one)
 * gets the policy's `lookup` hook, and each connection's host is checked before it starts.
 */
export function guardedConnector(
  policy: EgressPolicy,
  build: (options: buildConnector.BuildOptions) => buildConnector.connector,
  options: buildConnector.BuildOptions,
): buildConnector.connector {
  const connect = build({ ...options, lookup: egressLookup(policy) });
  return (connectOptions, callback) => {
    const port = Number(connectOptions.port) || (connectOptions.protocol === 'https:' ? 443 : 80);
    const guarded = guardConnect(policy, connectOptions.hostname, port, () =>
      connect(connectOptions, callback),
    );
    if ('denied' in guarded) process.nextTick(() => callback(guarded.denied, null));
  };
}

/** A keep-alive Agent whose every connection passes the policy: webhook deliveries send through one. */
export function createEgressAgent(policy: EgressPolicy, options: { connectTimeoutMs: number }): Agent {
  return new Agent({
    connect: guardedConnector(policy, buildConnector, { timeout: options.connectTimeoutMs }),
  });
}
