import { describe, expect, it } from 'vitest';
import { addressKey } from '../../hub/src/http/client-address.js';
import { createTokenBuckets } from '../../hub/src/http/token-buckets.js';

describe('token buckets kept in memory', () => {
  it('hold no more than maxKeys buckets however many keys come, forgetting the least recently used', () => {
    const clock = { ms: 0 };
    const buckets = createTokenBuckets({ perSecond: 1, burst: 2 }, 100, () => clock.ms);
    buckets.take('steady');
    buckets.take('steady');
    for (let i = 0; i < 10_000; i += 1) {
      buckets.take(`made-up-${i}`);
      if (i % 50 === 0) buckets.take('steady');
    }
    expect(buckets.size).toBeLessThanOrEqual(100);
    // `steady` was used all along, so it was never the one forgotten: it is still out of tokens.
    expect(buckets.take('steady')).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('drop buckets that have refilled since their last use, a few on every call', () => {
    const clock = { ms: 0 };
    const buckets = createTokenBuckets({ perSecond: 10, burst: 5 }, 1000, () => clock.ms);
    for (let i = 0; i < 40; i += 1) buckets.take(`burst-${i}`);
    expect(buckets.size).toBe(40);
    clock.ms += 1000;
    for (let i = 0; i < 10; i += 1) buckets.take('later');
    expect(buckets.size).toBe(1);
  });

  it('let spent requests go into debt, at most one burst deep, and say when a token is back', () => {
    const clock = { ms: 0 };
    const buckets = createTokenBuckets({ perSecond: 0.5, burst: 2 }, 10, () => clock.ms);
    for (let i = 0; i < 10; i += 1) buckets.spend('guesser');
    expect(buckets.has('guesser')).toEqual({ allowed: false, retryAfterSeconds: 6 });
    clock.ms += 6000;
    expect(buckets.has('guesser')).toEqual({ allowed: true });
    expect(buckets.has('never-seen')).toEqual({ allowed: true });
    expect(buckets.size).toBe(1);
  });

  it('do not drain when the clock is set back', () => {
    const clock = { ms: 10_000 };
    const buckets = createTokenBuckets({ perSecond: 1, burst: 1 }, 10, () => clock.ms);
    buckets.take('a');
    clock.ms = 0;
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.ms = 1000;
    expect(buckets.take('a')).toEqual({ allowed: true });
  });
});

describe('the key a client address is limited under', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2::1', '2001:0db8:0001:0002::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:9', '2001:0db8:0001:0002::/64'],
    ['2001:DB8:1:2::1%eth0', '2001:0db8:0001:0002::/64'],
    ['::1', '0000:0000:0000:0000::/64'],
    ['64:ff9b::198.51.100.1', '0064:ff9b:0000:0000::/64'],
  ])('%s is kept under %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});
