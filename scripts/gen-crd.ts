// crds/monitors.meerkat.dev.yaml from the monitor zod schema (scripts/generated-files.ts says how generated files
// are kept).
import { stringify } from 'yaml';
import { buildMaintenanceWindowCrd } from '../operator/src/crd/maintenance-window-crd.js';
import { buildMonitorCrd } from '../operator/src/crd/monitor-crd.js';
import { syncGeneratedFiles } from './generated-files.js';

const content =
  '# DO NOT EDIT: generated from hub/src/contract/monitor-definition.ts by `npm run gen` (scripts/gen-crd.ts).\n' +
  stringify(buildMonitorCrd(), { lineWidth: 0 });
const windows =
  '# DO NOT EDIT: generated from hub/src/contract/maintenance-definition.ts by `npm run gen` (scripts/gen-crd.ts).\n' +
  stringify(buildMaintenanceWindowCrd(), { lineWidth: 0 });
syncGeneratedFiles([
  { path: 'crds/monitors.meerkat.dev.yaml', content },
  { path: 'crds/maintenancewindows.meerkat.dev.yaml', content: windows },
]);
