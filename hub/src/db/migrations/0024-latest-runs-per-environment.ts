import { sql, type Kysely } from 'kysely';

// Each run wrote two rows of its monitor's latest runs, its environment's and every environment's (''), each a
// heap-only update and a tuple lock in the WAL (docs/adr/0075-latest-runs-per-environment.md). The '' row is only
// ever the newest of the monitor's environment rows (and its newest success and failure among theirs), so the
// table keeps the environment rows alone, as `monitor_environment_latest_runs`, and `monitor_latest_runs` becomes
// a view that reads both: readers are unchanged. Constant filters on organization, monitor and environment reach
// the table's primary key through the view (DISTINCT ON keys), so a reader of a page of monitors reads their rows.
const COLUMNS = sql`organization_id, monitor_id, environment, last_run_id, last_run_status, last_run_success,
  last_run_at, last_run_duration_ms, last_run_created_at, last_success_at, last_success_created_at,
  last_failure_at, last_failure_created_at`;

const newestOf = (kind: 'success' | 'failure') => sql`left join lateral (
    select ${sql.ref(`e.last_${kind}_at`)} as at, ${sql.ref(`e.last_${kind}_created_at`)} as created_at
    from monitor_environment_latest_runs e
    where e.organization_id = l.organization_id and e.monitor_id = l.monitor_id
      and ${sql.ref(`e.last_${kind}_created_at`)} is not null
    order by ${sql.ref(`e.last_${kind}_created_at`)} desc, e.environment limit 1) ${sql.raw(kind)} on true`;

const EVERY_ENVIRONMENT = sql`
  select l.organization_id, l.monitor_id, ''::text as environment, l.last_run_id, l.last_run_status,
    l.last_run_success, l.last_run_at, l.last_run_duration_ms, l.last_run_created_at, success.at as last_success_at,
    success.created_at as last_success_created_at, failure.at as last_failure_at,
    failure.created_at as last_failure_created_at
  from (select distinct on (organization_id, monitor_id) * from monitor_environment_latest_runs
    order by organization_id, monitor_id, last_run_created_at desc, environment) l
  ${newestOf('success')} ${newestOf('failure')}`;

async function renameKeys(db: Kysely<unknown>, table: string, from: string, to: string): Promise<void> {
  for (const suffix of ['pk', 'monitor_fk'])
    await sql`alter table ${sql.table(table)} rename constraint ${sql.ref(`${from}_${suffix}`)}
      to ${sql.ref(`${to}_${suffix}`)}`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitor_latest_runs rename to monitor_environment_latest_runs`.execute(db);
  await renameKeys(
    db,
    'monitor_environment_latest_runs',
    'monitor_latest_runs',
    'monitor_environment_latest_runs',
  );
  await sql`delete from monitor_environment_latest_runs where environment = ''`.execute(db);
  await sql`create view monitor_latest_runs as
    select ${COLUMNS} from monitor_environment_latest_runs union all ${EVERY_ENVIRONMENT}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view monitor_latest_runs`.execute(db);
  await sql`insert into monitor_environment_latest_runs (${COLUMNS}) ${EVERY_ENVIRONMENT}`.execute(db);
  await sql`alter table monitor_environment_latest_runs rename to monitor_latest_runs`.execute(db);
  await renameKeys(db, 'monitor_latest_runs', 'monitor_environment_latest_runs', 'monitor_latest_runs');
}
