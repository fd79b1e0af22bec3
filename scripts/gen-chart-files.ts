// Copies into charts/meerkat the files the chart reads but that live elsewhere (`npm run gen`), or with --check
// fails when a copy has drifted (`npm run check`). Helm can only read files inside the chart, so the CRD, the
// RBAC rules, the Prometheus rules and the Grafana dashboard are copied, never restated. Run after gen-crd.ts.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const copies: ReadonlyArray<readonly [source: string, target: string]> = [
  ['crds/monitors.meerkat.dev.yaml', 'charts/meerkat/crds/monitors.meerkat.dev.yaml'],
  ['config/rbac/operator-clusterrole.yaml', 'charts/meerkat/files/rbac/operator-clusterrole.yaml'],
  ['config/rbac/hub-runner-jobs-role.yaml', 'charts/meerkat/files/rbac/hub-runner-jobs-role.yaml'],
  ['config/prometheus/rules.yaml', 'charts/meerkat/files/prometheus/rules.yaml'],
  ['config/grafana/meerkat-overview.json', 'charts/meerkat/files/grafana/meerkat-overview.json'],
];

const repoPath = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));
const readIfPresent = (path: string): string | undefined =>
  existsSync(repoPath(path)) ? readFileSync(repoPath(path), 'utf8') : undefined;

const drifted: string[] = [];
for (const [source, target] of copies) {
  // A source that does not exist (yet) has no copy: the chart then renders without what it would feed.
  const wanted = readIfPresent(source);
  const present = readIfPresent(target);
  if (wanted === present) continue;
  if (process.argv.includes('--check')) {
    drifted.push(target);
  } else if (wanted === undefined) {
    rmSync(repoPath(target));
  } else {
    mkdirSync(dirname(repoPath(target)), { recursive: true });
    writeFileSync(repoPath(target), wanted);
  }
}

if (drifted.length > 0) {
  process.stderr.write(`out of date: ${drifted.join(', ')}: run \`npm run gen\` and commit them\n`);
  process.exit(1);
}
process.stdout.write(`chart copies match their sources (${copies.length} files)\n`);
