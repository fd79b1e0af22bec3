// Small builders for monitor definitions in runner tests; every monitor goes through the real zod schema.
import type { Assertion } from '../../hub/src/contract/assertion.js';
import {
  monitorDefinitionSchema,
  type MonitorDefinition,
  type MonitorDefinitionInput,
} from '../../hub/src/contract/monitor-definition.js';
import type { SecretReader } from '../../hub/src/secrets/secret-store.js';
import { monitorDefinition } from '../harness/monitors.js';

type NodeInput = NonNullable<MonitorDefinitionInput['nodes']>[number];
type HttpNodeInput = Extract<NodeInput, { type: 'HTTP_REQUEST' }>;

export function monitorOf(
  nodes: NodeInput[],
  edges: Array<[string, string]> = [],
  environment = 'default',
): MonitorDefinition {
  return monitorDefinitionSchema.parse(
    monitorDefinition({
      project: 'runner-tests',
      name: 'under-test',
      environment,
      frequency: { every: 1, unit: 'MINUTE' },
      nodes,
      edges: edges.map(([from, to]) => ({ from, to })),
    }),
  );
}

export function httpNode(
  id: string,
  base: HttpNodeInput['base'],
  path: HttpNodeInput['path'],
  more: Partial<HttpNodeInput> = {},
): HttpNodeInput {
  return { id, type: 'HTTP_REQUEST', method: 'GET', base, path, response_format: 'JSON', ...more };
}

export function assertionNode(id: string, assertions: Assertion[]): NodeInput {
  return { id, type: 'ASSERTION', assertions };
}

export const statusIs = (nodeId: string, expected: number): Assertion => ({
  nodeId,
  subject: 'status',
  predicate: { type: 'binary', operator: 'EQUAL', expected },
});

export function secretsOf(values: Record<string, string>): SecretReader {
  return { read: (_scope, name) => Promise.resolve(values[name]) };
}

export const noSecrets = secretsOf({});

export const runContext = (secrets: SecretReader = noSecrets) => ({ secrets, organizationId: 'acme' });
