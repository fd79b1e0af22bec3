// Runs the Argo CD health check docs/operator.md documents, as Argo CD would: the Lua script from the `argocd-cm`
// example, with the resource as the global `obj`, under Debian's Lua 5.4 (Argo CD embeds gopher-lua, a Lua 5.1:
// the script keeps to what both have). The resource goes in as a Lua table literal built from its JSON.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

const HEALTH_KEY = 'resource.customizations.health.meerkat.dev_Monitor';

/** The script of the documented `argocd-cm` ConfigMap. */
export function documentedHealthScript(): string {
  const text = readFileSync(new URL('../../docs/operator.md', import.meta.url), 'utf8');
  for (const [, block] of text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    for (const document of parseAllDocuments(block ?? '')) {
      const data = (document.toJS() as { data?: Record<string, string> } | null)?.data;
      if (data?.[HEALTH_KEY] !== undefined) return data[HEALTH_KEY];
    }
  }
  throw new Error(`docs/operator.md has no argocd-cm example with ${HEALTH_KEY}`);
}

/** JSON as a Lua expression; `null` becomes nil, as Argo CD's conversion leaves such a key out. */
function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string')
    return JSON.stringify(value).replace(/\\u([0-9a-fA-F]{4})/g, (_all, hex: string) => `\\u{${hex}}`);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(toLua).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).map(
    ([key, each]) => `[${toLua(key)}] = ${toLua(each)}`,
  );
  return `{${entries.join(', ')}}`;
}

export interface ArgoHealth {
  status: string;
  message: string;
}

/** The health Argo CD would show for `resource` (its JSON as the API server returns it). */
export function argoHealthOf(script: string, resource: unknown): ArgoHealth {
  const program =
    `obj = ${toLua(JSON.parse(JSON.stringify(resource)))}\n` +
    `local hs = (function()\n${script}\nend)()\n` +
    `io.write(hs.status, "\\n", hs.message or "")\n`;
  const lua = spawnSync('lua5.4', ['-'], { input: program, encoding: 'utf8' });
  if (lua.error)
    throw new Error(
      `lua5.4 could not run (${lua.error.message}): install Debian's lua5.4 (apt-get install lua5.4)`,
    );
  if (lua.status !== 0) throw new Error(`the health script failed: ${lua.stderr}`);
  const [status = '', ...message] = lua.stdout.split('\n');
  return { status, message: message.join('\n') };
}
