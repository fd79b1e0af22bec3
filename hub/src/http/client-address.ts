import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';

/**
 * The address a request came from: the peer's, or with `trustedProxyHops` n (proxies in front of the hub that
 * append to X-Forwarded-For) the address the n-th of them saw, as Express's numeric `trust proxy` reads it.
 * Addresses further left in the header were written by the client and are ignored.
 */
export function clientAddress(req: Request, trustedProxyHops: number): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (trustedProxyHops === 0) return peer;
  const forwarded = (req.get('x-forwarded-for') ?? '')
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '')
    .reverse();
  const chain = [peer, ...forwarded];
  return chain[Math.min(trustedProxyHops, chain.length - 1)]!;
}

/**
 * The key a client's limit is kept under: an IPv4 address, or the /64 network of an IPv6 one, since a single
 * IPv6 host usually holds a whole /64 and could otherwise take a fresh bucket per request.
 */
export function addressKey(address: string): string {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').replace(/%.*$/, '');
  if (isIPv4(plain) || !isIPv6(plain)) return plain;
  return `${expandIPv6(plain).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, `::` filled in and an embedded IPv4 tail as two groups. */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const groupsOf = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [group.padStart(4, '0')];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [((a << 8) | b).toString(16).padStart(4, '0'), ((c << 8) | d).toString(16).padStart(4, '0')];
        });
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  return [...front, ...Array<string>(8 - front.length - back.length).fill('0000'), ...back];
}
