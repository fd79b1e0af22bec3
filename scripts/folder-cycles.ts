// Folder-level import cycles in hub/src and operator/src (issue 20): ESLint's no-restricted-imports keeps each folder
// from importing the folders above it, but only for the rules someone wrote down; this check finds any loop at all,
// so a new folder cannot close one unnoticed. `npm run check` runs it; `--graph` prints the folder graph.
// Usage: tsx scripts/folder-cycles.ts [--graph]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { repoPath } from './generated-files.js';

const roots = ['hub/src', 'operator/src'];
const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** A file's folder: its first directory under hub/src (`hub/src/metrics/prometheus/x.ts` → `metrics`), or `operator`. */
function folderOf(path: string): string | undefined {
  const fromRoot = relative(repoPath(''), path).split(sep).join('/');
  if (fromRoot.startsWith('operator/src/')) return 'operator';
  const match = /^hub\/src\/([^/]+)\//.exec(fromRoot);
  return match?.[1];
}

export function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const root of roots) {
    for (const file of sourceFiles(repoPath(root))) {
      const from = folderOf(file);
      if (from === undefined) continue;
      const edges = graph.get(from) ?? new Set<string>();
      graph.set(from, edges);
      for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
        const specifier = match[1] ?? match[2];
        if (specifier === undefined || !specifier.startsWith('.')) continue;
        const to = folderOf(resolve(dirname(file), specifier));
        if (to !== undefined && to !== from) edges.add(to);
      }
    }
  }
  return graph;
}

/** Strongly connected components of more than one folder (Tarjan): each is a loop of folders. */
export function folderCycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

if (
  process.argv[1] !== undefined &&
  resolve(process.argv[1]) === resolve(repoPath('scripts/folder-cycles.ts'))
) {
  const graph = folderGraph();
  if (process.argv.includes('--graph')) {
    for (const [folder, edges] of [...graph].sort(([a], [b]) => a.localeCompare(b)))
      console.log(`${folder} → ${[...edges].sort().join(', ')}`);
  }
  const cycles = folderCycles(graph);
  for (const cycle of cycles) console.error(`folder cycle: ${cycle.join(' ↔ ')}`);
  if (cycles.length > 0) process.exit(1);
  console.log(`no folder cycle among ${graph.size} folders`);
}
