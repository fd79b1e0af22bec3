// The scheduler's replicas (docs/adr/0069-scheduler-lease.md: one schedules, the others stand by) and
// scheduler.inWorker: no scheduler Deployment, the first `worker` location's workers keep the schedules
// (docs/adr/0067-scheduler-in-a-worker.md).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JOB_THEN_TWO_WORKER_LOCATIONS } from './chart-locations.js';
import { chartDir, renderChart, type KubeObject } from './render-chart.js';

type Deployment = KubeObject & {
  spec: { replicas: number; template: { spec: { containers: { args: string[] }[] } } };
};

const scratch = mkdtempSync(join(tmpdir(), 'meerkat-chart-scheduler-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function valuesFile(name: string, text: string): string {
  const file = join(scratch, name);
  writeFileSync(file, text);
  return file;
}

const defaults = join(chartDir, 'ci', 'default-values.yaml');
const deployment = (chart: ReturnType<typeof renderChart>, name: string) =>
  chart.find('Deployment', name) as Deployment;
const deploymentNames = (chart: ReturnType<typeof renderChart>) =>
  chart
    .ofKind('Deployment')
    .map((d) => d.metadata.name)
    .sort();

describe('scheduler.inWorker', () => {
  it('is off by default: a scheduler Deployment runs and no worker keeps the schedules', () => {
    const chart = renderChart([defaults]);
    expect(deploymentNames(chart)).toContain('meerkat-scheduler');
    expect(deployment(chart, 'meerkat-worker-default').spec.template.spec.containers[0]?.args).toEqual([
      'worker',
      '--locations',
      'default',
    ]);
  });

  it('when on with one worker replica, renders no scheduler and gives that worker --with-scheduler', () => {
    const chart = renderChart([
      defaults,
      valuesFile('one.yaml', 'scheduler:\n  inWorker: true\nworker:\n  replicas: 1\n'),
    ]);
    expect(deploymentNames(chart)).toEqual(['meerkat-hub', 'meerkat-operator', 'meerkat-worker-default']);
    const worker = deployment(chart, 'meerkat-worker-default');
    expect(worker.spec.replicas).toBe(1);
    expect(worker.spec.template.spec.containers[0]?.args).toEqual([
      'worker',
      '--locations',
      'default',
      '--with-scheduler',
    ]);
  });

  it('puts the scheduler in the first worker location only, past a job location', () => {
    const chart = renderChart([
      defaults,
      valuesFile(
        'locations.yaml',
        ['scheduler:', '  inWorker: true', ...JOB_THEN_TWO_WORKER_LOCATIONS, ''].join('\n'),
      ),
    ]);
    const argsOf = (name: string) => deployment(chart, name).spec.template.spec.containers[0]?.args;
    expect(argsOf('meerkat-worker-eu')).toEqual(['worker', '--locations', 'eu', '--with-scheduler']);
    expect(argsOf('meerkat-worker-us')).toEqual(['worker', '--locations', 'us']);
    expect(argsOf('meerkat-worker-jobs')).toEqual(['worker', '--locations', 'jobs']);
    expect(deploymentNames(chart)).not.toContain('meerkat-scheduler');
  });

  it('gives --with-scheduler to every replica of that worker: the lease lets one of them schedule', () => {
    const chart = renderChart([defaults, valuesFile('two.yaml', 'scheduler:\n  inWorker: true\n')]);
    const worker = deployment(chart, 'meerkat-worker-default');
    expect(worker.spec.replicas).toBe(2);
    expect(worker.spec.template.spec.containers[0]?.args).toEqual([
      'worker',
      '--locations',
      'default',
      '--with-scheduler',
    ]);
    expect(chart.ofKind('PodDisruptionBudget').map((p) => p.metadata.name)).not.toContain(
      'meerkat-scheduler',
    );
  });
});

describe('scheduler.replicas', () => {
  it('renders one scheduler and no disruption budget by default', () => {
    const chart = renderChart([defaults]);
    expect(deployment(chart, 'meerkat-scheduler').spec.replicas).toBe(1);
    expect(chart.ofKind('PodDisruptionBudget').map((p) => p.metadata.name)).not.toContain(
      'meerkat-scheduler',
    );
  });

  it('renders stand-by replicas and a budget that keeps all but one of them through a drain', () => {
    const chart = renderChart([defaults, valuesFile('replicas.yaml', 'scheduler:\n  replicas: 2\n')]);
    expect(deployment(chart, 'meerkat-scheduler').spec.replicas).toBe(2);
    const budget = chart.find('PodDisruptionBudget', 'meerkat-scheduler') as KubeObject & {
      spec: { maxUnavailable: number; selector: { matchLabels: Record<string, string> } };
    };
    expect(budget.spec.maxUnavailable).toBe(1);
    expect(budget.spec.selector.matchLabels['app.kubernetes.io/component']).toBe('scheduler');
  });

  it('refuses 0 replicas, naming the value', () => {
    expect(() => renderChart([defaults, valuesFile('zero.yaml', 'scheduler:\n  replicas: 0\n')])).toThrow(
      /scheduler.*replicas/,
    );
  });
});
