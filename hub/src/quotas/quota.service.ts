import type { Db, DbTransaction } from '../db/database.js';
import { checkIfMatch, strongEtag, type Precondition } from '../http/conditional-requests.js';
import type { Clock } from '../system/clock.js';
import { withOverrides, type QuotaOverrides, type QuotaPolicy } from './organization-quotas.js';
import type { QuotaSource } from './quota-source.js';
import {
  deleteQuotaOverrides,
  findQuotaOverrides,
  listQuotaOverrides,
  lockQuotaOverrides,
  putQuotaOverrides,
  type StoredQuotaOverrides,
} from './quota.repository.js';
import type { OrganizationQuotaState } from './quota.schema.js';
import { usageByQuota } from './quota-usage.js';
import { quotaUsageOf } from './quota-usage.repository.js';

/**
 * The strong ETag of an organization's overrides (docs/adr/0046-monitor-etags.md): a digest of the overrides, who
 * set them and when, with the keys in one order. It versions what a PUT or DELETE replaces, not the usage beside it
 * in the answer (a live reading that changes with every monitor written); with no overrides it is the tag of none.
 */
function quotaEtag(organizationId: string, stored: StoredQuotaOverrides | undefined): string {
  const overrides = Object.entries(stored?.overrides ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return strongEtag([
    organizationId,
    overrides,
    stored?.updatedBy ?? null,
    stored?.updatedAt.toISOString() ?? null,
  ]);
}

/** The platform admin's view of quotas (docs/adr/0028-quotas-and-bulk-writes.md): read, override, reset. */
export function createQuotaService(deps: { db: Db; clock: Clock; policy: QuotaPolicy; source: QuotaSource }) {
  const { db, policy } = deps;

  async function stateOf(
    organizationId: string,
    stored: StoredQuotaOverrides | undefined,
  ): Promise<OrganizationQuotaState> {
    const overrides = stored?.overrides ?? {};
    return {
      organizationId,
      defaults: policy.defaults,
      overrides,
      effective: withOverrides(policy.defaults, overrides),
      usage: usageByQuota(await quotaUsageOf(db, organizationId), policy.runRetentionDays),
      updatedBy: stored?.updatedBy ?? null,
      updatedAt: stored?.updatedAt.toISOString() ?? null,
    };
  }

  /**
   * Runs `write` holding the organization's overrides lock, once the stored overrides still meet `ifMatch`. The
   * quotas always have a current version (the defaults, with no overrides), so `If-Match: *` always holds.
   */
  async function underPrecondition<T>(
    organizationId: string,
    ifMatch: Precondition | undefined,
    write: (tx: DbTransaction) => Promise<T>,
  ): Promise<T> {
    return db.transaction().execute(async (tx) => {
      await lockQuotaOverrides(tx, organizationId);
      if (ifMatch !== undefined) {
        const current = quotaEtag(organizationId, await findQuotaOverrides(tx, organizationId));
        checkIfMatch(ifMatch, { what: `the quotas of ${organizationId}`, kind: 'version' }, current);
      }
      return write(tx);
    });
  }

  return {
    /** The quotas and the ETag of the overrides answered. */
    async get(organizationId: string): Promise<{ state: OrganizationQuotaState; etag: string }> {
      const stored = await findQuotaOverrides(db, organizationId);
      return { state: await stateOf(organizationId, stored), etag: quotaEtag(organizationId, stored) };
    },

    /**
     * Replaces the organization's overrides. Lowering a quota below what the organization uses refuses its next
     * writes over it; nothing it owns is deleted.
     */
    async put(
      organizationId: string,
      overrides: QuotaOverrides,
      by: string,
      ifMatch?: Precondition,
    ): Promise<{ state: OrganizationQuotaState; etag: string }> {
      const stored = await underPrecondition(organizationId, ifMatch, (tx) =>
        putQuotaOverrides(tx, { organizationId, overrides, updatedBy: by, updatedAt: deps.clock.now() }),
      );
      deps.source.forget(organizationId);
      return { state: await stateOf(organizationId, stored), etag: quotaEtag(organizationId, stored) };
    },

    /** Back to the defaults; true when there were overrides. */
    async reset(organizationId: string, ifMatch?: Precondition): Promise<boolean> {
      const deleted = await underPrecondition(organizationId, ifMatch, (tx) =>
        deleteQuotaOverrides(tx, organizationId),
      );
      deps.source.forget(organizationId);
      return deleted;
    },

    async list(page: { limit: number; offset: number }) {
      const { rows, total } = await listQuotaOverrides(db, page);
      return {
        data: rows.map((row) => ({ ...row, updatedAt: row.updatedAt.toISOString() })),
        total,
      };
    },
  };
}

export type QuotaService = ReturnType<typeof createQuotaService>;
