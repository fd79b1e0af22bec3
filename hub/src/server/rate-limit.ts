import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { principalOf } from '../auth/middleware.js';
import type { Principal } from '../auth/principal.js';
import type { Settings } from '../config/settings.js';
import { addressKey, clientAddress } from '../http/client-address.js';
import { QuotaExceededError, RateLimitedError } from '../http/errors.js';
import { createTokenBuckets, isLimited, type BucketRate, type TokenBuckets } from '../http/token-buckets.js';
import type { QuotaSource } from '../quotas/quota-source.js';

/** The limits of docs/adr/0012-rate-limits.md, from the API_* settings; a rate or burst of 0 turns one off. */
export interface RateLimitSettings {
  /** API_RATE_LIMIT_PER_SECOND and API_RATE_LIMIT_BURST: per caller, and per Slack workspace. */
  perCaller: BucketRate;
  /** API_AUTH_FAILURES_PER_MINUTE: refused credentials per client address; the burst is one minute's worth. */
  authFailuresPerMinute: number;
  /** API_TRUSTED_PROXY_HOPS: proxies in front of the hub whose X-Forwarded-For entries name the client. */
  trustedProxyHops: number;
}

export function rateLimitSettingsOf(settings: Readonly<Settings>): RateLimitSettings {
  return {
    perCaller: { perSecond: settings.API_RATE_LIMIT_PER_SECOND, burst: settings.API_RATE_LIMIT_BURST },
    authFailuresPerMinute: settings.API_AUTH_FAILURES_PER_MINUTE,
    trustedProxyHops: settings.API_TRUSTED_PROXY_HOPS,
  };
}

export interface RateLimits {
  /**
   * Before a credential is checked (bearer token or Slack signature): an address that has spent its budget of
   * refused credentials is answered 429 before any verification work, and every 401 is charged to it.
   */
  beforeCredentialCheck: RequestHandler;
  /** After authentication: each request takes a token of its caller's bucket. */
  perCaller: RequestHandler;
  /** Each verified Slack event takes a token of its workspace's bucket; throws RateLimitedError. */
  admitSlackTeam: (teamId: string) => void;
}

// Bounds on what one hub process holds: a couple of hundred bytes an entry, some 16 MB when all are full.
const MAX_CALLERS = 10_000;
const MAX_ADDRESSES = 50_000;
const MAX_SLACK_TEAMS = 10_000;
const MAX_KNOWN_CREDENTIALS = 10_000;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The bearer token's digest: a key for the set of credentials that verified, never the token itself. */
function credentialDigest(req: Request): string | undefined {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
  return token === undefined ? undefined : sha256(token);
}

/** The requests-per-second quota of organizations (docs/adr/0028-quotas-and-bulk-writes.md); none when absent. */
export interface OrganizationRequestLimits {
  quotas: QuotaSource;
  /** Called for each authenticated request the quota let through: the usage counter. */
  admitted?: (organizationId: string) => void;
}

/**
 * What the caller has left of the tighter of its limits, so clients pace themselves instead of meeting a 429
 * (docs/adr/0028-quotas-and-bulk-writes.md): `RateLimit-Policy: <burst>;w=<seconds an empty bucket takes to fill>`
 * and `RateLimit-Remaining: <whole tokens left>`, the fields of the IETF RateLimit header draft.
 */
interface Headroom {
  rate: BucketRate;
  tokens: number;
}

function setRateLimitHeaders(res: Response, headroom: Headroom | undefined): void {
  if (headroom === undefined) return;
  const { burst, perSecond } = headroom.rate;
  res.setHeader('RateLimit-Policy', `${burst};w=${Number((burst / perSecond).toFixed(3))}`);
  res.setHeader('RateLimit-Remaining', String(Math.max(0, Math.floor(headroom.tokens))));
}

const tighter = (a: Headroom | undefined, b: Headroom | undefined) =>
  a === undefined || (b !== undefined && b.tokens < a.tokens) ? b : a;

/** A burst of five seconds' worth, as API_RATE_LIMIT_BURST is to API_RATE_LIMIT_PER_SECOND by default. */
const QUOTA_BURST_SECONDS = 5;
const MAX_ORGANIZATIONS = 10_000;

/**
 * One bucket per organization, all its callers together. Buckets are kept per rate, so an organization whose
 * quota changed starts a bucket at its new rate (full) rather than keep a debt counted at the old one.
 */
function organizationBuckets(now: () => number) {
  const byRate = new Map<number, { buckets: TokenBuckets; rate: BucketRate }>();
  return (perSecond: number) => {
    let atRate = byRate.get(perSecond);
    if (atRate === undefined) {
      const rate = { perSecond, burst: Math.max(1, Math.ceil(perSecond * QUOTA_BURST_SECONDS)) };
      atRate = { buckets: createTokenBuckets(rate, MAX_ORGANIZATIONS, now), rate };
      byRate.set(perSecond, atRate);
    }
    return atRate;
  };
}

export function createRateLimits(
  settings: RateLimitSettings | undefined,
  now: () => number,
  organizations?: OrganizationRequestLimits,
): RateLimits {
  const callerRate = settings?.perCaller ?? { perSecond: 0, burst: 0 };
  const failureRate = {
    perSecond: (settings?.authFailuresPerMinute ?? 0) / 60,
    burst: settings?.authFailuresPerMinute ?? 0,
  };
  const hops = settings?.trustedProxyHops ?? 0;
  const callers = createTokenBuckets(callerRate, MAX_CALLERS, now);
  const slackTeams = createTokenBuckets(callerRate, MAX_SLACK_TEAMS, now);
  const addresses = createTokenBuckets(failureRate, MAX_ADDRESSES, now);
  // Credentials that verified lately skip the address check: clients sharing an address (a NAT, a proxy that
  // is not counted in API_TRUSTED_PROXY_HOPS) keep working while someone there presents bad keys.
  const knownCredentials = new Map<string, true>();

  function remember(digest: string): void {
    knownCredentials.delete(digest);
    knownCredentials.set(digest, true);
    for (const oldest of knownCredentials.keys()) {
      if (knownCredentials.size <= MAX_KNOWN_CREDENTIALS) break;
      knownCredentials.delete(oldest);
    }
  }

  const digests = new WeakMap<Request, string>();
  // A request that passes the Slack hook's mount without matching its route meets this check twice.
  const checked = new WeakSet<Request>();
  const beforeCredentialCheck: RequestHandler = (req, res, next) => {
    if (checked.has(req)) return next();
    checked.add(req);
    const digest = credentialDigest(req);
    if (digest !== undefined) digests.set(req, digest);
    const address = addressKey(clientAddress(req, hops));
    res.once('finish', () => {
      if (res.statusCode !== 401) return;
      addresses.spend(address);
      if (digest !== undefined) knownCredentials.delete(digest);
    });
    if (digest !== undefined && knownCredentials.has(digest)) return next();
    const budget = addresses.has(address);
    if (!budget.allowed) {
      throw new RateLimitedError(
        `too many refused credentials from this address; retry in ${budget.retryAfterSeconds} s`,
        budget.retryAfterSeconds,
      );
    }
    next();
  };

  const bucketsAtRate = organizationBuckets(now);
  async function perOrganization(organizationId: string): Promise<Headroom | undefined> {
    if (organizations === undefined) return undefined;
    const { requestsPerSecond } = await organizations.quotas.of(organizationId);
    let headroom: Headroom | undefined;
    if (requestsPerSecond > 0) {
      const { buckets, rate } = bucketsAtRate(requestsPerSecond);
      const taken = buckets.take(organizationId);
      if (!taken.allowed)
        throw new QuotaExceededError(
          'requestsPerSecond',
          requestsPerSecond,
          {
            path: '',
            message: `the organization's callers together sent more than ${requestsPerSecond} requests a second; retry in ${taken.retryAfterSeconds} s`,
          },
          taken.retryAfterSeconds,
        );
      headroom = { rate, tokens: buckets.tokens(organizationId) };
    }
    organizations.admitted?.(organizationId);
    return headroom;
  }

  const perCaller: RequestHandler = async (req, res, next) => {
    const digest = digests.get(req);
    if (digest !== undefined) remember(digest);
    const principal = principalOf(req);
    // The caller's own bucket first: one noisy key is refused alone, without spending its organization's.
    const caller = isLimited(callerRate) ? takeCallerToken(principal) : undefined;
    setRateLimitHeaders(res, tighter(caller, await perOrganization(principal.organizationId)));
    next();
  };

  function takeCallerToken(principal: Principal): Headroom {
    // Keyed by a digest of who is calling, so neither a key nor a subject is kept in the clear.
    const key = sha256(`${principal.method}\n${principal.organizationId}\n${principal.subject}`);
    const taken = callers.take(key);
    if (!taken.allowed) {
      throw new RateLimitedError(
        `rate limit of ${callerRate.perSecond} requests per second (burst ${callerRate.burst}) exceeded; retry in ${taken.retryAfterSeconds} s`,
        taken.retryAfterSeconds,
      );
    }
    return { rate: callerRate, tokens: callers.tokens(key) };
  }

  return {
    beforeCredentialCheck: isLimited(failureRate) ? beforeCredentialCheck : (_req, _res, next) => next(),
    perCaller:
      isLimited(callerRate) || isLimited(failureRate) || organizations !== undefined
        ? perCaller
        : (_req, _res, next) => next(),
    admitSlackTeam: (teamId) => {
      if (!isLimited(callerRate)) return;
      const taken = slackTeams.take(teamId);
      if (!taken.allowed) {
        throw new RateLimitedError(
          `too many events from this Slack workspace; retry in ${taken.retryAfterSeconds} s`,
          taken.retryAfterSeconds,
        );
      }
    },
  };
}
