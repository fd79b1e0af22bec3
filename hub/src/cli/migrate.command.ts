import type { Command } from 'commander';
import { loadSettings } from '../config/settings.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrator.js';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (DATABASE_URL, or the embedded database when unset)')
    .action(async () => {
      const settings = loadSettings(process.env, 'admin');
      const { db, description } = openDatabase({
        url: settings.DATABASE_URL,
        dataDir: settings.MEERKAT_DATA_DIR,
      });
      try {
        const results = await migrateToLatest(db);
        const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
        process.stdout.write(
          applied.length === 0
            ? `${description}: already up to date\n`
            : `${description}: applied ${applied.join(', ')}\n`,
        );
      } finally {
        await db.destroy();
      }
    });
}
