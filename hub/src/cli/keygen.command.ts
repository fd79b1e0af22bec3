import { Option, type Command } from 'commander';
import { formatApiKeyEntry, generateApiKey, hashApiKey } from '../auth/api-keys.js';
import { organizationIdSchema, roleSchema } from '../contract/roles.js';

export function registerKeygenCommand(program: Command): void {
  program
    .command('keygen')
    .description(
      'create an API key and print it with its AUTH_API_KEYS entry (only the hash goes in the entry)',
    )
    .requiredOption('--org <organizationId>', 'organization the key acts for', (value) => {
      const parsed = organizationIdSchema.safeParse(value);
      if (!parsed.success)
        program.error(`meerkat keygen: --org: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return value;
    })
    .addOption(
      new Option('--role <role>', 'what the key may do').choices(roleSchema.options).makeOptionMandatory(),
    )
    .action((options: { org: string; role: (typeof roleSchema.options)[number] }) => {
      const key = generateApiKey();
      const entry = formatApiKeyEntry({
        organizationId: options.org,
        role: options.role,
        sha256: hashApiKey(key),
      });
      process.stdout.write(
        [
          `key:   ${key}`,
          `entry: ${entry}`,
          '',
          'Give the key to its user once; it is not stored anywhere.',
          'Append the entry to AUTH_API_KEYS (comma-separated) on every hub.',
          '',
        ].join('\n'),
      );
    });
}
