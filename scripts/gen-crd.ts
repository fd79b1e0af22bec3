// Writes crds/monitors.meerkat.dev.yaml from the monitor zod schema (`npm run gen`), or with --check fails when
// the committed copy has drifted from it (`npm run check`). The file is generated: DO NOT EDIT it by hand.
import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { buildMonitorCrd } from '../operator/src/crd/monitor-crd.js';

const target = new URL('../crds/monitors.meerkat.dev.yaml', import.meta.url);
const generated =
  '# DO NOT EDIT: generated from hub/src/contract/monitor-definition.ts by `npm run gen` (scripts/gen-crd.ts).\n' +
  stringify(buildMonitorCrd(), { lineWidth: 0 });

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing counts as drift
  }
  if (committed !== generated) {
    process.stderr.write('crds/monitors.meerkat.dev.yaml is out of date: run `npm run gen` and commit it\n');
    process.exit(1);
  }
  process.stdout.write('crds/monitors.meerkat.dev.yaml matches the schemas\n');
} else {
  writeFileSync(target, generated);
  process.stdout.write('wrote crds/monitors.meerkat.dev.yaml\n');
}
