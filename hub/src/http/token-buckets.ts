/** How fast a bucket refills and how much it holds; either at 0 turns the limit off. */
export interface BucketRate {
  perSecond: number;
  burst: number;
}

export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets kept in memory per process; see docs/adr/0012-rate-limits.md for why not in Redis. */
export interface TokenBuckets {
  /** Takes one token of `key`'s bucket, or says in how many whole seconds one will be there. */
  take(key: string): TakeResult;
  /** Whether `key` has a token, without taking it; a key never seen has a full bucket and is not stored. */
  has(key: string): TakeResult;
  /**
   * Takes one token even when there is none: the bucket goes into debt (at most one burst deep), so requests
   * that were let in together and then failed are all paid for.
   */
  spend(key: string): void;
  /** The tokens `key` holds now (a burst for a key never seen), without touching it. */
  tokens(key: string): number;
  /** Buckets held now (idle ones are dropped, so this stays near the number of recent callers). */
  readonly size: number;
}

/**
 * Token buckets by key with bounded memory. The Map is kept in least-recently-used order (a touched key is
 * moved to the end), so idle buckets sit at the front: each call drops a few front ones that have refilled,
 * and when `maxKeys` is reached the least recently used one goes. Losing a bucket only forgives its debt;
 * the cost of a call stays constant however many keys an attacker makes up.
 */
export function createTokenBuckets(rate: BucketRate, maxKeys: number, now: () => number): TokenBuckets {
  const buckets = new Map<string, Bucket>();
  const refillPerMs = rate.perSecond / 1000;

  function current(key: string, at: number): Bucket {
    const known = buckets.get(key);
    if (known !== undefined) buckets.delete(key);
    const bucket = known ?? { tokens: rate.burst, at };
    // A clock set back must not drain buckets.
    bucket.tokens = Math.min(rate.burst, bucket.tokens + Math.max(0, at - bucket.at) * refillPerMs);
    bucket.at = at;
    buckets.set(key, bucket);
    return bucket;
  }

  function forgetIdle(at: number): void {
    for (let checked = 0; checked < 4; checked += 1) {
      const oldest = buckets.entries().next().value;
      // A bucket that has refilled since its last use is the same as no bucket, so forgetting it changes nothing.
      if (oldest === undefined || oldest[1].tokens + (at - oldest[1].at) * refillPerMs < rate.burst) break;
      buckets.delete(oldest[0]);
    }
  }

  function verdict(bucket: Bucket): TakeResult {
    if (bucket.tokens >= 1) return { allowed: true };
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate.perSecond)),
    };
  }

  function touch(key: string): Bucket {
    const at = now();
    forgetIdle(at);
    if (!buckets.has(key))
      for (const oldest of buckets.keys()) {
        if (buckets.size < maxKeys) break;
        buckets.delete(oldest);
      }
    return current(key, at);
  }

  return {
    take(key) {
      const bucket = touch(key);
      const result = verdict(bucket);
      if (result.allowed) bucket.tokens -= 1;
      return result;
    },
    has: (key) => (buckets.has(key) ? verdict(touch(key)) : { allowed: true }),
    spend(key) {
      const bucket = touch(key);
      bucket.tokens = Math.max(-rate.burst, bucket.tokens - 1);
    },
    tokens(key) {
      const bucket = buckets.get(key);
      if (bucket === undefined) return rate.burst;
      return Math.min(rate.burst, bucket.tokens + Math.max(0, now() - bucket.at) * refillPerMs);
    },
    get size() {
      return buckets.size;
    },
  };
}

export function isLimited(rate: BucketRate): boolean {
  return rate.perSecond > 0 && rate.burst > 0;
}
