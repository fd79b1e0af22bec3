// A small valid monitor definition that tests copy and change one thing in.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export type Definition = Record<string, unknown> & {
  nodes: Array<Record<string, unknown>>;
  edges: Array<{ from: string; to: string }>;
  notifications?: Array<Record<string, unknown>>;
};

export function validMonitor(overrides: Record<string, unknown> = {}): Definition {
  return {
    project: 'shop',
    name: 'checkout',
    version: '1.0',
    environment: 'production',
    frequency: { every: 5, unit: 'MINUTE' },
    nodes: [
      {
        id: 'cart',
        type: 'HTTP_REQUEST',
        method: 'GET',
        base: 'https://api.example.com',
        path: '/cart',
        response_format: 'JSON',
      },
      { id: 'pause', type: 'WAIT', duration_ms: 100 },
      {
        id: 'verify',
        type: 'ASSERTION',
        assertions: [
          {
            nodeId: 'cart',
            subject: 'status',
            predicate: { type: 'binary', operator: 'EQUAL', expected: 200 },
          },
        ],
      },
    ],
    edges: [
      { from: 'cart', to: 'pause' },
      { from: 'pause', to: 'verify' },
    ],
    notifications: [{ trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' } }],
    ...overrides,
  };
}

/** The monitor samples of config/samples/monitors, in the API form (resources unwrapped). */
export function sampleMonitors(): Definition[] {
  return ['public-json-api.yaml', 'login-flow.yaml', 'multi-branch.yaml'].map((file) => {
    const document = parse(
      readFileSync(new URL(`../../config/samples/monitors/${file}`, import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    if (document.kind !== 'Monitor') return document as Definition;
    const { spec, metadata } = document as { spec: Definition; metadata: { name: string } };
    return { ...spec, name: metadata.name };
  });
}
