import type { Db } from '../db/database.js';
import type { Clock } from '../system/clock.js';
import { withOverrides, type QuotaOverrides, type QuotaPolicy } from './organization-quotas.js';
import type { QuotaSource } from './quota-source.js';
import {
  deleteQuotaOverrides,
  findQuotaOverrides,
  listQuotaOverrides,
  putQuotaOverrides,
  type StoredQuotaOverrides,
} from './quota.repository.js';
import type { OrganizationQuotaState } from './quota.schema.js';
import { usageByQuota } from './quota-usage.js';
import { quotaUsageOf } from './quota-usage.repository.js';

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

  return {
    async get(organizationId: string): Promise<OrganizationQuotaState> {
      return stateOf(organizationId, await findQuotaOverrides(db, organizationId));
    },

    /**
     * Replaces the organization's overrides. Lowering a quota below what the organization uses refuses its next
     * writes over it; nothing it owns is deleted.
     */
    async put(
      organizationId: string,
      overrides: QuotaOverrides,
      by: string,
    ): Promise<OrganizationQuotaState> {
      const stored = await putQuotaOverrides(db, {
        organizationId,
        overrides,
        updatedBy: by,
        updatedAt: deps.clock.now(),
      });
      deps.source.forget(organizationId);
      return stateOf(organizationId, stored);
    },

    /** Back to the defaults; true when there were overrides. */
    async reset(organizationId: string): Promise<boolean> {
      const deleted = await deleteQuotaOverrides(db, organizationId);
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
