// The operator's NODE_OPTIONS (operator.nodeOptions, docs/adr/0079-operator-heap-flags.md): the chart's V8 flags by
// default, a user's own, or none.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir, renderChart, type KubeObject } from './render-chart.js';

type Env = { name: string; value?: string };
type Deployment = KubeObject & { spec: { template: { spec: { containers: { env: Env[] }[] } } } };

const ciValues = (name: string) => join(chartDir, 'ci', name);
const nodeOptionsOf = (values: string[]) =>
  (
    renderChart([ciValues('default-values.yaml'), ...values]).find(
      'Deployment',
      'meerkat-operator',
    ) as Deployment
  ).spec.template.spec.containers[0]!.env.filter((e) => e.name === 'NODE_OPTIONS');

describe('the operator’s NODE_OPTIONS', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'meerkat-chart-operator-node-options-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const valuesFile = (name: string, text: string) => {
    const path = join(scratch, name);
    writeFileSync(path, text);
    return path;
  };

  it('caps the young generation and the old generation by default, as values.yaml says', () => {
    // The chart's own default, so the test follows a measured change of the value, not a copy of it.
    const { operator } = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as {
      operator: { nodeOptions: string };
    };
    expect(operator.nodeOptions).toMatch(/--max-semi-space-size=\d+/);
    expect(operator.nodeOptions).toMatch(/--max-old-space-size=\d+/);
    expect(nodeOptionsOf([])).toEqual([{ name: 'NODE_OPTIONS', value: operator.nodeOptions }]);
  });

  it('takes a user’s flags, and sets none when the value is empty', () => {
    const own = valuesFile('own.yaml', 'operator:\n  nodeOptions: --max-old-space-size=512\n');
    expect(nodeOptionsOf([own])).toEqual([{ name: 'NODE_OPTIONS', value: '--max-old-space-size=512' }]);
    const none = valuesFile('none.yaml', "operator:\n  nodeOptions: ''\n");
    expect(nodeOptionsOf([none])).toEqual([]);
  });

  it('refuses a value that is not a string', () => {
    const wrong = valuesFile('wrong.yaml', 'operator:\n  nodeOptions: 256\n');
    expect(() => nodeOptionsOf([wrong])).toThrow(/nodeOptions/);
  });
});
