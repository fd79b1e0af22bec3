import type { Command } from 'commander';
import type { QuotaName, QuotaOverrides } from '../quotas/organization-quotas.js';
import { quotaOverridesSchema } from '../quotas/organization-quotas.js';
import type { OrganizationQuotaState, QuotaOverridesRow } from '../quotas/quota.schema.js';
import { CommandFailure, ExitCode } from './exit-codes.js';
import { connectToHub, hubOptions, type HubOptions } from './hub-connection.js';
import { listingOf, listingOptions, printItems, type ListingOptions } from './output-format.js';

// `meerkat admin quotas`: the admin API of quotas (docs/api-conventions.md#quotas) for platform admins.

/** Each quota as its flag: `--min-frequency-seconds` for `minFrequencySeconds`. */
const QUOTA_FLAGS: ReadonlyArray<{ quota: QuotaName; flag: string; what: string }> = [
  { quota: 'monitors', flag: 'monitors', what: 'monitors it may own' },
  { quota: 'minFrequencySeconds', flag: 'min-frequency-seconds', what: 'the shortest interval of a monitor' },
  { quota: 'locationsPerMonitor', flag: 'locations-per-monitor', what: 'locations of one monitor' },
  { quota: 'runsKept', flag: 'runs-kept', what: 'scheduled runs its monitors keep' },
  { quota: 'requestsPerSecond', flag: 'requests-per-second', what: 'API requests a second of its callers' },
];

type SetOptions = HubOptions & Partial<Record<QuotaName, string>> & { default?: string[] };

/** The flags given, as overrides; a value the admin API would refuse is a usage error naming its flag. */
function overridesOf(options: SetOptions): QuotaOverrides {
  const given: Record<string, number> = {};
  for (const { quota, flag } of QUOTA_FLAGS) {
    const text = options[quota];
    if (text === undefined) continue;
    const value = text.trim() === '' ? Number.NaN : Number(text);
    const checked = quotaOverridesSchema.shape[quota].safeParse(value);
    if (!checked.success)
      throw new CommandFailure(
        ExitCode.usage,
        `--${flag} ${text}: ${checked.error.issues[0]?.message ?? 'not a valid quota'}`,
      );
    given[quota] = value;
  }
  return given;
}

/** One row per quota of an organization: its default, its override, the quota in force and the usage. */
function quotaRows(state: OrganizationQuotaState) {
  return QUOTA_FLAGS.map(({ quota }) => ({
    id: quota,
    default: state.defaults[quota],
    override: state.overrides[quota],
    effective: state.effective[quota],
    usage: quota === 'requestsPerSecond' ? undefined : state.usage[quota],
  }));
}
const shown = (value: number | undefined) =>
  value === undefined ? '-' : value === 0 ? 'off' : String(value);

function printState(state: OrganizationQuotaState, options: ListingOptions): void {
  const { format } = listingOf(options);
  if (format !== 'table' && format !== 'wide')
    return printItems([{ ...state, id: state.organizationId }], {
      ...listingOf(options),
      kind: 'quotas',
      plural: 'quotas',
      columns: [],
      single: true,
    });
  printItems(quotaRows(state), {
    ...listingOf(options),
    kind: 'quota',
    plural: 'quotas',
    single: false,
    columns: [
      { title: 'QUOTA', cell: (row) => row.id },
      { title: 'DEFAULT', cell: (row) => shown(row.default) },
      { title: 'OVERRIDE', cell: (row) => (row.override === undefined ? '-' : shown(row.override)) },
      { title: 'IN FORCE', cell: (row) => shown(row.effective) },
      { title: 'USAGE', cell: (row) => (row.usage === undefined ? '-' : String(row.usage)) },
    ],
  });
}

function printOverrides(rows: QuotaOverridesRow[], options: ListingOptions): void {
  printItems(
    rows.map((row) => ({ ...row, id: row.organizationId })),
    {
      ...listingOf(options),
      kind: 'quotas',
      plural: 'organizations with quota overrides',
      single: false,
      columns: [
        { title: 'ORGANIZATION', cell: (row) => row.organizationId },
        {
          title: 'OVERRIDES',
          cell: (row) =>
            Object.entries(row.overrides)
              .map(([quota, value]) => `${quota}=${value}`)
              .join(','),
        },
        { title: 'UPDATED BY', cell: (row) => row.updatedBy },
        { title: 'UPDATED AT', cell: (row) => row.updatedAt },
      ],
    },
  );
}

function registerQuotas(admin: Command): void {
  const quotas = admin
    .command('quotas')
    .description(
      "organizations' quotas: their defaults (QUOTA_* settings), overrides, those in force and usage",
    );

  hubOptions(listingOptions(quotas.command('get [organization]').alias('list').alias('ls')))
    .description(
      'one organization: each quota with its default, override, value in force and usage; none: the organizations with overrides',
    )
    .action(async (organization: string | undefined, options: HubOptions & ListingOptions) => {
      const hub = connectToHub(options);
      if (organization === undefined) return printOverrides(await hub.listQuotaOverrides(), options);
      printState(await hub.getQuotas(organization), options);
    });

  const set = quotas
    .command('set <organization>')
    .description(
      "override an organization's quotas: each flag given replaces its value (0 turns the quota off), the " +
        'other overrides stay; --default QUOTA drops one override so the default applies again',
    );
  // Commander names each option's value by its flag in camel case: --runs-kept is options.runsKept.
  for (const { flag, what } of QUOTA_FLAGS) set.option(`--${flag} <n>`, what);
  set.option(
    '--default <quota...>',
    `quotas whose override to drop (${QUOTA_FLAGS.map((q) => q.quota).join(', ')})`,
  );
  hubOptions(listingOptions(set)).action(
    async (organization: string, options: SetOptions & ListingOptions) => {
      const given = overridesOf(options);
      const dropped = options.default ?? [];
      const unknown = dropped.filter((quota) => !QUOTA_FLAGS.some((q) => q.quota === quota));
      if (unknown.length > 0)
        throw new CommandFailure(ExitCode.usage, `--default ${unknown.join(' ')}: not a quota`);
      if (Object.keys(given).length === 0 && dropped.length === 0)
        throw new CommandFailure(
          ExitCode.usage,
          'give a quota to set (e.g. --monitors 500) or --default QUOTA',
        );
      const hub = connectToHub(options);
      // The admin API's PUT replaces every override: keep those not named here.
      const overrides: QuotaOverrides = { ...(await hub.getQuotas(organization)).overrides, ...given };
      for (const quota of dropped) delete overrides[quota as QuotaName];
      printState(await hub.putQuotas(organization, overrides), options);
    },
  );

  hubOptions(quotas.command('reset <organization>'))
    .description("drop every override of an organization's quotas: the defaults apply again")
    .action(async (organization: string, options: HubOptions) => {
      await connectToHub(options).resetQuotas(organization);
      process.stdout.write(`quotas of ${organization} reset to the defaults\n`);
    });
}

export function registerAdminCommand(program: Command): void {
  const admin = program
    .command('admin')
    .description('platform administration (admins of PLATFORM_ADMIN_ORGANIZATION only)');
  registerQuotas(admin);
}
