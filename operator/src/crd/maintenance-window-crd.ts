// The CustomResourceDefinition `maintenancewindows.meerkat.dev`, derived from the window definition's zod schema
// (the one PUT /maintenance-windows/{name} validates with) and the status schema; `npm run gen` writes it to crds/.
import { z } from 'zod';
import { maintenanceWindowDefinitionSchema } from '../../../hub/src/contract/maintenance-definition.js';
import { MAINTENANCE_WINDOW_KIND } from '../../../hub/src/contract/maintenance-window-resource.js';
import { MONITOR_GROUP, MONITOR_VERSION } from '../monitor-resource-status.js';
import { WINDOW_PLURAL, windowResourceStatusSchema } from '../maintenance-window/window-resource.js';
import { toStructuralSchema, type JsonSchema } from './structural-schema.js';

const structural = (schema: z.ZodType): JsonSchema =>
  toStructuralSchema(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));

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
  const statusSchema = structural(windowResourceStatusSchema);
  statusSchema.description = 'What the operator last observed; written only by the operator.';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${WINDOW_PLURAL}.${MONITOR_GROUP}` },
    spec: {
      group: MONITOR_GROUP,
      scope: 'Namespaced',
      names: {
        plural: WINDOW_PLURAL,
        singular: 'maintenancewindow',
        kind: MAINTENANCE_WINDOW_KIND,
        listKind: `${MAINTENANCE_WINDOW_KIND}List`,
        shortNames: ['mkmw'],
        categories: ['meerkat'],
      },
      versions: [
        {
          name: MONITOR_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
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
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description:
                'A maintenance window (notifications held, runs left out of figures), kept in the Meerkat hub by ' +
                '`meerkat operator`.',
              properties: {
                apiVersion: { type: 'string', description: 'apiVersion: meerkat.dev/v1alpha1.' },
                kind: { type: 'string', description: 'kind: MaintenanceWindow.' },
                metadata: { type: 'object' },
                spec: specSchema(),
                status: statusSchema,
              },
              required: ['spec'],
            },
          },
        },
      ],
    },
  };
}
