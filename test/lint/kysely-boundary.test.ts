import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { boundaries } from '../../eslint.boundaries.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The rule ids eslint.boundaries.js reports for `source` as if it were the file at `filePath`. */
async function ruleIdsFor(filePath: string, source: string): Promise<Array<string | null>> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...boundaries],
  });
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId);
}

// Only repositories and db/ import kysely (docs/development.md, ADR 0042): a deliberate violation must fail.
describe('kysely only in repositories and db/', () => {
  it('refuses kysely in a service, a hook or a scheduling file', async () => {
    for (const file of [
      'hub/src/metrics/overdue-monitors.ts',
      'hub/src/notifications/rule-evaluation-hook.ts',
      'hub/src/scheduling/schedule-reconciler.ts',
    ]) {
      expect(
        await ruleIdsFor(file, "import { sql } from 'kysely';\nexport const q = sql`select 1`;\n"),
      ).toEqual(['no-restricted-imports']);
    }
  });

  it('refuses a type-only import too: DbTransaction (db/database.ts) names a transaction', async () => {
    const source = "import type { Transaction } from 'kysely';\nexport type T = Transaction<never>;\n";
    expect(await ruleIdsFor('hub/src/monitors/monitor.service.ts', source)).toEqual([
      'no-restricted-imports',
    ]);
  });

  it('takes it in a repository and in db/', async () => {
    const source = "import { sql } from 'kysely';\nexport const q = sql`select 1`;\n";
    expect(await ruleIdsFor('hub/src/metrics/latest-runs.repository.ts', source)).toEqual([]);
    expect(await ruleIdsFor('hub/src/db/database.ts', source)).toEqual([]);
  });

  it('still refuses an import against the layers in a repository', async () => {
    const source = "import { x } from '../server/app.js';\nexport const y = x;\n";
    expect(await ruleIdsFor('hub/src/runs/run.repository.ts', source)).toEqual(['no-restricted-imports']);
  });
});
