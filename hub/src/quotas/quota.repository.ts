import { sql, type Transaction } from 'kysely';
import type { Executor } from '../db/database.js';
import type { Database } from '../db/tables.js';
import { quotaOverridesSchema, type QuotaOverrides } from './organization-quotas.js';
import { jsonColumn } from '../db/json-column.js';

export interface StoredQuotaOverrides {
  organizationId: string;
  overrides: QuotaOverrides;
  updatedBy: string;
  updatedAt: Date;
}

function toStored(row: {
  organization_id: string;
  overrides: Record<string, number>;
  updated_by: string;
  updated_at: Date;
}): StoredQuotaOverrides {
  return {
    organizationId: row.organization_id,
    // Written through the same schema by the admin API; parsed again so a stored row can never widen a type.
    overrides: quotaOverridesSchema.parse(row.overrides),
    updatedBy: row.updated_by,
    updatedAt: row.updated_at,
  };
}

export async function findQuotaOverrides(
  db: Executor,
  organizationId: string,
): Promise<StoredQuotaOverrides | undefined> {
  const row = await db
    .selectFrom('organization_quotas')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return row === undefined ? undefined : toStored(row);
}

export async function listQuotaOverrides(
  db: Executor,
  page: { limit: number; offset: number },
): Promise<{ rows: StoredQuotaOverrides[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('organization_quotas')
      .selectAll()
      .orderBy('organization_id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('organization_quotas')
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(toStored), total: Number(count.total) };
}

/** Every organization's overrides, for the quota gauges (one row per organization given any). */
export async function allQuotaOverrides(db: Executor): Promise<StoredQuotaOverrides[]> {
  return (await db.selectFrom('organization_quotas').selectAll().execute()).map(toStored);
}

export async function putQuotaOverrides(
  db: Executor,
  row: { organizationId: string; overrides: QuotaOverrides; updatedBy: string; updatedAt: Date },
): Promise<StoredQuotaOverrides> {
  const values = {
    // An override left out is absent from the JSON, as JSON.stringify leaves undefined out.
    overrides: jsonColumn(
      Object.fromEntries(
        Object.entries(row.overrides).filter((entry): entry is [string, number] => entry[1] !== undefined),
      ),
    ),
    updated_by: row.updatedBy,
    updated_at: row.updatedAt,
  };
  const stored = await db
    .insertInto('organization_quotas')
    .values({ organization_id: row.organizationId, ...values })
    .onConflict((oc) => oc.column('organization_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
  return toStored(stored);
}

/** True when the organization had overrides. */
export async function deleteQuotaOverrides(db: Executor, organizationId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('organization_quotas')
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Holds the organization's quota lock until the transaction ends: monitor writes that a quota counts take turns,
 * so two at once cannot both take the last place.
 */
export async function lockOrganizationQuotas(tx: Transaction<Database>, organizationId: string) {
  await sql`select pg_advisory_xact_lock(hashtext(${`monitors:${organizationId}`}))`.execute(tx);
}

/**
 * Holds the lock of the organization's overrides until the transaction ends: a conditional write (If-Match) reads
 * the version it checks and writes under it, so two writes naming one version cannot both go ahead.
 */
export async function lockQuotaOverrides(tx: Transaction<Database>, organizationId: string) {
  await sql`select pg_advisory_xact_lock(hashtext(${`quota-overrides:${organizationId}`}))`.execute(tx);
}
