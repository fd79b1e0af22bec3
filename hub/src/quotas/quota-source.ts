import type { Db, Executor } from '../db/database.js';
import { withDeadline } from '../system/dependency-errors.js';
import { withOverrides, type OrganizationQuotas } from './organization-quotas.js';
import { findQuotaOverrides } from './quota.repository.js';

/** The quotas in force for an organization now, read in `db` (a write's own transaction, to judge the write). */
export async function readOrganizationQuotas(
  db: Executor,
  organizationId: string,
  defaults: OrganizationQuotas,
): Promise<OrganizationQuotas> {
  const stored = await findQuotaOverrides(db, organizationId);
  return stored === undefined ? defaults : withOverrides(defaults, stored.overrides);
}

/** A change made through this hub replica is seen at once; other replicas see it within this long. */
const QUOTA_CACHE_MS = 10_000;
const MAX_ORGANIZATIONS = 10_000;
/** A hung PostgreSQL costs a request at most this long here before the last known quotas are used. */
const READ_DEADLINE_MS = 1_000;

export interface QuotaSource {
  /** The organization's quotas, read at most every QUOTA_CACHE_MS; the last known (or the defaults) on a failed read. */
  of(organizationId: string): Promise<OrganizationQuotas>;
  /** Drops the cached quotas of an organization (its overrides changed). */
  forget(organizationId: string): void;
}

/**
 * Quotas for the request path (the requests-per-second quota): a database read per organization every
 * QUOTA_CACHE_MS, not per request. A read that fails (or takes over READ_DEADLINE_MS) answers what was known, else
 * the defaults: a quota lookup must not turn a PostgreSQL blink into refused requests (the request itself answers
 * 503 if it needs the database).
 */
export function createQuotaSource(options: {
  db: Db;
  defaults: OrganizationQuotas;
  now: () => number;
}): QuotaSource {
  const cache = new Map<string, { at: number; quotas: Promise<OrganizationQuotas> }>();
  return {
    async of(organizationId) {
      const cached = cache.get(organizationId);
      if (cached !== undefined && options.now() - cached.at < QUOTA_CACHE_MS) return cached.quotas;
      const known = cached === undefined ? options.defaults : await cached.quotas;
      const quotas = withDeadline('database', READ_DEADLINE_MS, () =>
        readOrganizationQuotas(options.db, organizationId, options.defaults),
      ).catch(() => known);
      cache.delete(organizationId);
      cache.set(organizationId, { at: options.now(), quotas });
      for (const oldest of cache.keys()) {
        if (cache.size <= MAX_ORGANIZATIONS) break;
        cache.delete(oldest);
      }
      return quotas;
    },
    forget: (organizationId) => cache.delete(organizationId),
  };
}
