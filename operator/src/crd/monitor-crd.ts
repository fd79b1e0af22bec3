// The CustomResourceDefinition `monitors.meerkat.dev`, derived from the monitor definition's zod schema (the
// same one the hub validates PUT /monitor/{id} with) and the status schema; `npm run gen` writes it to crds/.
import { MONITOR_KIND } from '../../../hub/src/contract/monitor-resource.js';
import { monitorDefinitionSchema } from '../../../hub/src/contract/monitor-definition.js';
import { MONITOR_PLURAL, monitorResourceStatusSchema } from '../monitor-resource-status.js';
import { buildCrd, structural } from './custom-resource-definition.js';
import type { JsonSchema } from './structural-schema.js';

function specSchema(): JsonSchema {
  const spec = structural(monitorDefinitionSchema);
  // A resource's name and project come from metadata.name and the namespace when the spec leaves them out.
  spec.required = (spec.required as string[]).filter((field) => field !== 'name' && field !== 'project');
  const properties = spec.properties as Record<string, JsonSchema>;
  for (const [field, fallback] of [
    ['name', 'metadata.name'],
    ['project', 'the namespace'],
  ] as const) {
    const property = properties[field];
    if (property) property.description = `${field}: optional, default ${fallback}.`;
  }
  spec.description =
    'The monitor definition, as PUT /monitor/{id} takes it (docs/monitors.md). Example: ' +
    "{ version: '1.0', frequency: { every: 5, unit: MINUTE }, nodes: [{ id: get, type: HTTP_REQUEST, " +
    'method: GET, base: https://api.example.com, path: /healthz, response_format: JSON }, { id: ok, ' +
    'type: ASSERTION, assertions: [{ nodeId: get, subject: status, predicate: { type: binary, operator: ' +
    'EQUAL, expected: 200 } }] }], edges: [{ from: get, to: ok }] }. `kubectl explain monitors.spec.nodes` ' +
    'says which fields each node `type` takes.';
  return spec;
}

export function buildMonitorCrd() {
  return buildCrd({
    plural: MONITOR_PLURAL,
    singular: 'monitor',
    kind: MONITOR_KIND,
    shortNames: ['mkm'],
    additionalPrinterColumns: [
      { name: 'Health', type: 'string', jsonPath: '.status.health' },
      { name: 'Success', type: 'string', jsonPath: '.status.successRate' },
      { name: 'Last Run', type: 'date', jsonPath: '.status.lastRun' },
      { name: 'Synced', type: 'string', jsonPath: '.status.conditions[?(@.type=="Synced")].status' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      // `-o wide` only (priority 1): why, in the operator's and the hub's words.
      ...[
        ['Reason', '.status.conditions[?(@.type=="Synced")].reason'],
        ['Message', '.status.conditions[?(@.type=="Synced")].message'],
        ['Last Result', '.status.lastRunResult'],
        ['Run Error', '.status.lastRunError'],
      ].map(([name, jsonPath]) => ({ name, type: 'string', jsonPath, priority: 1 })),
    ],
    description: 'A synthetic API monitor, kept in sync with the Meerkat hub by `meerkat operator`.',
    spec: specSchema(),
    status: monitorResourceStatusSchema,
  });
}
