import { sql, type Kysely } from 'kysely';

// Per-organization quota overrides set by a platform admin (docs/adr/0028-quotas-and-bulk-writes.md). One row per
// organization that has any; `overrides` holds only the quotas that differ from the QUOTA_* defaults, so a default
// changed later still applies to every quota an organization was not given explicitly.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organization_quotas')
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('overrides', 'jsonb', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_quotas').execute();
}
