// A small valid monitor definition that tests copy and change one thing in.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { getNode, monitorDefinition, statusAssertionNode, type MonitorBody } from '../harness/monitors.js';

export type Definition = MonitorBody;

export function validMonitor(overrides: Record<string, unknown> = {}): Definition {
  return monitorDefinition({
    nodes: [
      getNode('cart', 'https://api.example.com', '/cart'),
      { id: 'pause', type: 'WAIT', duration_ms: 100 },
      statusAssertionNode('verify', 'cart', 200),
    ],
    edges: [
      { from: 'cart', to: 'pause' },
      { from: 'pause', to: 'verify' },
    ],
    notifications: [{ trigger: { type: 'run_failed' }, routing: { channelType: 'webhook' } }],
    ...overrides,
  });
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
