import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { BlockList } from 'node:net';
import { z } from 'zod';
import { addressInList, blockListOf, judgedAddress, type JudgedAddress } from './ip-address.js';

// Meerkat's own processes are never a monitor's target (docs/egress.md, ADR 0027): a worker must not read the
// hub's metrics (every organization's series) through a tenant's redirect. A process knows its own PORT and
// METRICS_PORT; MEERKAT_ENDPOINTS tells every process the endpoints of all the others of the release, as the
// chart (from its Services and ports) and `meerkat dev` know them.

/** One MEERKAT_ENDPOINTS entry: a name (and every name under it) or an address, on one port or on all. */
export interface OwnEndpoint {
  /** The entry as written, which a refusal quotes. */
  entry: string;
  name?: string;
  address?: JudgedAddress;
  port?: number;
}

const ENTRY_FORM =
  'must be HOST or HOST:PORT, HOST a name (meerkat-hub.ns.svc), an IPv4 address or a bracketed IPv6 address';
const hostName = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function parseEntry(text: string): OwnEndpoint | undefined {
  const entry = text.trim().toLowerCase();
  // A bare IPv6 address has colons of its own: only the bracketed form may carry a port.
  const bareV6 = isIP(entry) === 6 ? judgedAddress(entry) : undefined;
  if (bareV6 !== undefined) return { entry, address: bareV6 };
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(entry);
  if (match === null) return undefined;
  const [, host = '', portText] = match;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const address = judgedAddress(host);
  if (address !== undefined) return { entry, address, ...(port === undefined ? {} : { port }) };
  if (host.startsWith('[')) return undefined;
  const name = host.replace(/\.$/, '');
  if (!hostName.test(name) || name.length > 253) return undefined;
  return { entry, name, ...(port === undefined ? {} : { port }) };
}

export const ownEndpointSchema = z.string().transform((text, ctx): OwnEndpoint => {
  const parsed = parseEntry(text);
  if (parsed === undefined) {
    ctx.addIssue({ code: 'custom', message: ENTRY_FORM });
    return z.NEVER;
  }
  return parsed;
});

/** `localhost` and names under it are loopback by definition (RFC 6761): judged so before any lookup. */
export function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

export interface OwnEndpointOptions {
  /** This process's own ports (PORT, METRICS_PORT). */
  ownPorts?: readonly number[];
  /** The release's endpoints: MEERKAT_ENDPOINTS. */
  endpoints?: readonly OwnEndpoint[];
  /** This host's addresses; default every address of its network interfaces. */
  ownAddresses?: readonly string[];
}

export type OwnEndpointRefusal = { subject: string; rule: string };

const LOOPBACK_AND_THIS_HOST = ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128'];

/** Loopback, "this host" and every interface address: where a process sharing this host answers. */
function ownAddressList(ownAddresses: readonly string[] | undefined): BlockList {
  const interfaces = Object.values(networkInterfaces()).flatMap((addresses) => addresses ?? []);
  const addresses = ownAddresses ?? interfaces.map((entry) => entry.address);
  const judged = addresses.flatMap((address) => judgedAddress(address) ?? []);
  return blockListOf(
    ...LOOPBACK_AND_THIS_HOST,
    ...judged.map(({ address, family }) => `${address}/${family === 'ipv4' ? 32 : 128}`),
  );
}

const sameAddress = (a: JudgedAddress, b: JudgedAddress) => a.family === b.family && a.address === b.address;

/**
 * The check that comes before every allow rule: a port of this process or of any MEERKAT_ENDPOINTS entry on
 * this host's own addresses (processes sharing a host: `meerkat dev`, host networking), and each entry's own
 * name or address. Returns the refusal, or undefined.
 */
export function createOwnEndpointCheck(options: OwnEndpointOptions) {
  const endpoints = options.endpoints ?? [];
  const portRules = new Map<number, string>();
  for (const endpoint of endpoints)
    if (endpoint.port !== undefined) portRules.set(endpoint.port, `MEERKAT_ENDPOINTS ${endpoint.entry}`);
  for (const port of options.ownPorts ?? []) portRules.set(port, `the hub's own port ${port}`);
  const ownAddresses = portRules.size === 0 ? undefined : ownAddressList(options.ownAddresses);

  return (target: {
    host: string | undefined;
    address: JudgedAddress | undefined;
    subject: string;
    port: number;
  }): OwnEndpointRefusal | undefined => {
    const { host, address, subject, port } = target;
    const portRule = portRules.get(port);
    if (address !== undefined && ownAddresses !== undefined && portRule !== undefined)
      if (addressInList(ownAddresses, address)) return { subject: `${subject} port ${port}`, rule: portRule };
    const hit = endpoints.find(
      (endpoint) =>
        (endpoint.port === undefined || endpoint.port === port) &&
        ((endpoint.name !== undefined &&
          host !== undefined &&
          (host === endpoint.name || host.endsWith(`.${endpoint.name}`))) ||
          (endpoint.address !== undefined &&
            address !== undefined &&
            sameAddress(endpoint.address, address))),
    );
    if (hit === undefined) return undefined;
    return { subject: `${subject} port ${port}`, rule: `MEERKAT_ENDPOINTS ${hit.entry}` };
  };
}
