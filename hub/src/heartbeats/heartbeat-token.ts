import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `hb_` and 32 random bytes in base64url: 256 bits, so a token cannot be guessed, only leaked. */
const TOKEN_SHAPE = /^hb_[A-Za-z0-9_-]{43}$/;

export function mintHeartbeatToken(): string {
  return `hb_${randomBytes(32).toString('base64url')}`;
}

/** Whether `text` can be a token at all: anything else is refused before any hashing or database work. */
export function isHeartbeatTokenShaped(text: string): boolean {
  return TOKEN_SHAPE.test(text);
}

/** What is stored and looked up: the token's SHA-256 in hex, never the token. */
export function heartbeatTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The stored hash against the presented token's, in constant time. The lookup that found the row already
 * matched on the hash (an index equality, whose timing can say at most something about a SHA-256 of the token,
 * never about the token); this says it again without any early exit.
 */
export function sameTokenHash(stored: string, presented: string): boolean {
  const [a, b] = [Buffer.from(stored, 'hex'), Buffer.from(presented, 'hex')];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A URL path with any ping token in it replaced, for request logs. */
export function withoutPingToken(path: string): string {
  return path.replace(/^\/ping\/[^/?#]+/, '/ping/[token]');
}
