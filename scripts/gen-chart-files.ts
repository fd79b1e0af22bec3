// Copies into charts/meerkat the files the chart reads but that live elsewhere. Helm can only read files inside
// the chart, so the CRD, the RBAC rules, the Prometheus rules and the Grafana dashboard are copied, never
// restated. Run after gen-crd.ts (scripts/generated-files.ts says how generated files are kept).
import { readIfPresent, syncGeneratedFiles } from './generated-files.js';

const copies: ReadonlyArray<readonly [source: string, target: string]> = [
  ['crds/monitors.meerkat.dev.yaml', 'charts/meerkat/crds/monitors.meerkat.dev.yaml'],
  ['config/rbac/operator-clusterrole.yaml', 'charts/meerkat/files/rbac/operator-clusterrole.yaml'],
  ['config/rbac/worker-runner-jobs-role.yaml', 'charts/meerkat/files/rbac/worker-runner-jobs-role.yaml'],
  ['config/prometheus/rules.yaml', 'charts/meerkat/files/prometheus/rules.yaml'],
  ['config/grafana/meerkat-overview.json', 'charts/meerkat/files/grafana/meerkat-overview.json'],
  ['crds/maintenancewindows.meerkat.dev.yaml', 'charts/meerkat/crds/maintenancewindows.meerkat.dev.yaml'],
];

// A source that does not exist has no copy: the chart then renders without what it would feed.
syncGeneratedFiles(copies.map(([source, target]) => ({ path: target, content: readIfPresent(source) })));
