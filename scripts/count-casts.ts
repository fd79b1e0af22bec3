// Type assertions in hub/src, counted on the TypeScript AST (issue 36 finding 4, ADR 0042): `x as T` and `<T>x`
// (`as const` excluded), with non-null assertions (`x!`) and `as unknown as` reported apart, so a cast cut is not
// a cast traded for `!`. test/lint/casts-ceiling.test.ts holds the counts to a ceiling that only goes down.
// Usage: npx tsx scripts/count-casts.ts [--list]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { repoPath } from './generated-files.js';

export type CastKind = 'assertion' | 'nonNull' | 'unknownAs';

export interface CastSite {
  kind: CastKind;
  /** Path from the repository root. */
  file: string;
  line: number;
  text: string;
}

export interface CastCount {
  /** `x as T` and `<T>x`, `as const` excluded; an `as unknown as T` counts as two, like the AST has. */
  assertions: number;
  nonNullAssertions: number;
  /** `x as unknown as T` chains, also counted in `assertions`. */
  unknownAs: number;
  /** Type assertions by the first folder under hub/src (`(root)` for files directly in it). */
  byFolder: Map<string, number>;
  sites: CastSite[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

function isAsConst(node: ts.AssertionExpression): boolean {
  return (
    ts.isTypeReferenceNode(node.type) &&
    ts.isIdentifier(node.type.typeName) &&
    node.type.typeName.text === 'const'
  );
}

function kindOf(node: ts.Node): CastKind | undefined {
  if (ts.isNonNullExpression(node)) return 'nonNull';
  if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
    return isAsConst(node) ? undefined : 'assertion';
  }
  return undefined;
}

function isUnknownAs(node: ts.Node): boolean {
  return (
    ts.isAsExpression(node) &&
    ts.isAsExpression(node.expression) &&
    node.expression.type.kind === ts.SyntaxKind.UnknownKeyword
  );
}

function folderOf(file: string, root: string): string {
  const parts = relative(root, file).split(sep);
  return parts.length > 1 ? (parts[0] ?? '(root)') : '(root)';
}

/** Walks every .ts file under `root` (hub/src by default) and counts its assertions. */
export function countCasts(root = repoPath('hub/src')): CastCount {
  const count: CastCount = {
    assertions: 0,
    nonNullAssertions: 0,
    unknownAs: 0,
    byFolder: new Map(),
    sites: [],
  };
  for (const file of sourceFiles(root).sort()) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const site = (kind: CastKind, node: ts.Node): void => {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const text = node.getText(source).replace(/\s+/g, ' ');
      const file = relative(repoPath(''), source.fileName).split(sep).join('/');
      count.sites.push({ kind, file, line, text: text.length > 100 ? `${text.slice(0, 97)}...` : text });
    };
    const visit = (node: ts.Node): void => {
      const kind = kindOf(node);
      if (kind === 'assertion') {
        count.assertions += 1;
        const folder = folderOf(file, root);
        count.byFolder.set(folder, (count.byFolder.get(folder) ?? 0) + 1);
        site(kind, node);
      } else if (kind === 'nonNull') {
        count.nonNullAssertions += 1;
        site(kind, node);
      }
      if (isUnknownAs(node)) {
        count.unknownAs += 1;
        site('unknownAs', node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return count;
}

if (
  process.argv[1] !== undefined &&
  resolve(process.argv[1]) === resolve(repoPath('scripts/count-casts.ts'))
) {
  const count = countCasts();
  console.log(`type assertions in hub/src: ${count.assertions} (as const excluded)`);
  for (const [folder, n] of [...count.byFolder].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)))
    console.log(`  ${folder.padEnd(16)} ${n}`);
  console.log(`non-null assertions (x!): ${count.nonNullAssertions}`);
  console.log(`as unknown as: ${count.unknownAs}`);
  if (process.argv.includes('--list')) {
    for (const { kind, file, line, text } of count.sites) console.log(`${kind}\t${file}:${line}\t${text}`);
  }
}
