// The CustomResourceDefinition `maintenancewindows.meerkat.dev`, derived from the window definition's zod schema
// (the one PUT /maintenance-windows/{name} validates with) and the status schema; `npm run gen` writes it to crds/.
import { maintenanceWindowDefinitionSchema } from '../../../hub/src/contract/maintenance-definition.js';
import { MAINTENANCE_WINDOW_KIND } from '../../../hub/src/contract/maintenance-window-resource.js';
import { WINDOW_PLURAL, windowResourceStatusSchema } from '../maintenance-window/window-resource.js';
import { buildCrd, structural } from './custom-resource-definition.js';
import type { JsonSchema } from './structural-schema.js';

function specSchema(): JsonSchema {
  // The hub window's name is `<namespace>-<metadata.name>` (ADR 0035), so the spec has none.
  const spec = structural(maintenanceWindowDefinitionSchema.omit({ name: true }));
  spec.description =
    'The window, as PUT /maintenance-windows/{name} takes it (docs/notifications.md). Without a `project` ' +
    'matcher it covers the namespace’s project. Example: { matchers: [{ label: monitor, values: [checkout] }], ' +
    "schedule: { type: cron, cron: '0 23 * * 6', timezone: Europe/Berlin, durationMinutes: 180 } }.";
  return spec;
}

export function buildMaintenanceWindowCrd() {
  return buildCrd({
    plural: WINDOW_PLURAL,
    singular: 'maintenancewindow',
    kind: MAINTENANCE_WINDOW_KIND,
    shortNames: ['mkmw'],
    additionalPrinterColumns: [
      { name: 'Active', type: 'boolean', jsonPath: '.status.active' },
      { name: 'Next', type: 'date', jsonPath: '.status.nextStart' },
      { name: 'Synced', type: 'string', jsonPath: '.status.conditions[?(@.type=="Synced")].status' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      {
        name: 'Message',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Synced")].message',
        priority: 1,
      },
    ],
    description:
      'A maintenance window (notifications held, runs left out of figures), kept in the Meerkat hub by ' +
      '`meerkat operator`.',
    spec: specSchema(),
    status: windowResourceStatusSchema,
  });
}
