import { BlockList, isIP } from 'node:net';

export type AddressFamily = 'ipv4' | 'ipv6';

/** An address as the policy judges it. */
export interface JudgedAddress {
  address: string;
  family: AddressFamily;
}

/** The eight 16-bit groups of an IPv6 address that `isIP` accepted (zone id already removed). */
function ipv6Groups(address: string): number[] {
  // The URL parser rewrites a dotted IPv4 tail (::ffff:1.2.3.4) into hex groups.
  const hex = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [head = '', tail] = hex.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].map((group) => parseInt(group, 16));
}

const dotted = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The address a connection really reaches: an IPv4-mapped IPv6 address (`::ffff:169.254.169.254`) and one in
 * the NAT64 well-known prefix (`64:ff9b::a9fe:a9fe`) are judged as the IPv4 address they carry, so a rule on
 * 169.254.0.0/16 cannot be stepped around by writing the address in IPv6. Undefined for anything not an IP.
 */
export function judgedAddress(raw: string): JudgedAddress | undefined {
  const bare = raw.replace(/^\[(.*)\]$/, '$1').split('%')[0] ?? '';
  const version = isIP(bare);
  if (version === 4) return { address: bare, family: 'ipv4' };
  if (version !== 6) return undefined;
  const groups = ipv6Groups(bare);
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  const mapped = upperZero && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (mapped || nat64) return { address: dotted(g6, g7), family: 'ipv4' };
  return { address: groups.map((group) => group.toString(16)).join(':'), family: 'ipv6' };
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (a /32 or /128); undefined when the text is neither. */
export function parseCidr(
  text: string,
): { address: string; prefix: number; family: AddressFamily } | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  if (rest.length > 0) return undefined;
  const judged = judgedAddress(address);
  if (judged === undefined || address.includes('%')) return undefined;
  const family: AddressFamily = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  const max = family === 'ipv4' ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix <= max ? { address, prefix, family } : undefined;
}

/** A BlockList of the ranges (each one already validated by the settings schema). */
export function blockListOf(...cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const parsed = parseCidr(cidr);
    if (parsed === undefined) throw new Error(`not a CIDR: ${cidr}`);
    list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list;
}

/** Whether the address falls in the list; an IPv4 rule also catches the IPv6 forms that carry the address. */
export function addressInList(list: BlockList, address: JudgedAddress): boolean {
  return list.check(address.address, address.family);
}
