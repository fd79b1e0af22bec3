// The hub tells each caller the tighter of its limits (`RateLimit-Policy: <burst>;w=<seconds to fill>`) and what it
// has left (`RateLimit-Remaining`): the client keeps its own estimate of that bucket and waits before a request the
// hub would refuse, so `meerkat apply` of 1,000 documents and the operator's sync of 1,000 Monitors go at the
// hub's rate without a 429 (docs/adr/0028-quotas-and-bulk-writes.md). A hub that sends no policy is not paced.

/** Refill the estimate a little slower than the hub does, so the two clocks' drift never costs a 429. */
const SAFETY = 0.9;

interface Policy {
  perSecond: number;
  burst: number;
}

function policyOf(headers: Headers): { policy: Policy; remaining: number } | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*;\s*w=(\d+(?:\.\d+)?)\s*$/.exec(headers.get('ratelimit-policy') ?? '');
  const remaining = Number(headers.get('ratelimit-remaining') ?? Number.NaN);
  const burst = Number(match?.[1]);
  const window = Number(match?.[2]);
  if (!(burst > 0 && window > 0 && remaining >= 0)) return undefined;
  return { policy: { burst, perSecond: (burst / window) * SAFETY }, remaining };
}

export interface RequestPacer {
  /** Resolves when a request may go: it reserves a token of the estimate, waiting for one when there is none. */
  beforeRequest(): Promise<void>;
  /** Learns the policy and what is left from an answer's headers. */
  afterResponse(headers: Headers): void;
}

export function createRequestPacer(
  now: () => number = Date.now,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): RequestPacer {
  let policy: Policy | undefined;
  // May go below zero: requests waiting have reserved their tokens, so ones sent together queue behind each other.
  let tokens = 0;
  let at = 0;

  function refill(time: number): void {
    if (policy === undefined) return;
    tokens = Math.min(policy.burst, tokens + ((time - at) / 1000) * policy.perSecond);
    at = time;
  }

  return {
    async beforeRequest() {
      if (policy === undefined) return;
      refill(now());
      tokens -= 1;
      if (tokens < 0) await sleep((-tokens / policy.perSecond) * 1000);
    },
    afterResponse(headers) {
      const answer = policyOf(headers);
      if (answer === undefined) return;
      const time = now();
      if (policy === undefined) {
        policy = answer.policy;
        tokens = answer.remaining;
        at = time;
        return;
      }
      policy = answer.policy;
      refill(time);
      // The hub's count leaves out requests still in flight, which the estimate has already taken.
      tokens = Math.min(tokens, answer.remaining);
    },
  };
}
