// worker.inHub (docs/adr/0086-worker-in-the-hub.md): the hub's Pods serve the first `worker` location, which gets
// no Deployment of its own, keep the schedules with scheduler.inWorker, and take the workers' egress.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JOB_LOCATION, JOB_THEN_TWO_WORKER_LOCATIONS } from './chart-locations.js';
import { chartDir, renderChart, type KubeObject, type RenderedChart } from './render-chart.js';

type Deployment = KubeObject & { spec: { template: { spec: { containers: { args: string[] }[] } } } };
interface EgressRule {
  to?: { ipBlock?: { cidr: string; except?: string[] } }[];
}
type Policy = KubeObject & { spec: { egress: EgressRule[] } };

const scratch = mkdtempSync(join(tmpdir(), 'meerkat-chart-worker-in-hub-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const defaults = join(chartDir, 'ci', 'default-values.yaml');
function render(name: string, yaml: string): RenderedChart {
  const file = join(scratch, name);
  writeFileSync(file, yaml);
  return renderChart([defaults, file]);
}
const argsOf = (chart: RenderedChart, name: string) =>
  (chart.find('Deployment', name) as Deployment).spec.template.spec.containers[0]?.args;
const deploymentNames = (chart: RenderedChart) =>
  chart
    .ofKind('Deployment')
    .map((d) => d.metadata.name)
    .sort();
/** What the hub's open egress rule keeps out, IPv4 and IPv6 together. */
const hubExcepts = (chart: RenderedChart) =>
  (chart.find('NetworkPolicy', 'meerkat-hub') as Policy).spec.egress
    .flatMap((r) => r.to ?? [])
    .filter((peer) => ['0.0.0.0/0', '::/0'].includes(peer.ipBlock?.cidr ?? ''))
    .flatMap((peer) => peer.ipBlock?.except ?? []);

describe('worker.inHub', () => {
  it('is off by default: the hub serves the API alone', () => {
    const chart = renderChart([defaults]);
    expect(argsOf(chart, 'meerkat-hub')).toEqual(['hub']);
    expect(deploymentNames(chart)).toContain('meerkat-worker-default');
  });

  it('with scheduler.inWorker, runs the API, the checks and the schedules in the hub alone', () => {
    const chart = render('all.yaml', 'worker:\n  inHub: true\nscheduler:\n  inWorker: true\n');
    expect(deploymentNames(chart)).toEqual(['meerkat-hub', 'meerkat-operator']);
    expect(argsOf(chart, 'meerkat-hub')).toEqual(['hub', '--locations', 'default', '--with-scheduler']);
  });

  it('keeps the scheduler Deployment without scheduler.inWorker', () => {
    const chart = render('hub.yaml', 'worker:\n  inHub: true\n');
    expect(deploymentNames(chart)).toEqual(['meerkat-hub', 'meerkat-operator', 'meerkat-scheduler']);
    expect(argsOf(chart, 'meerkat-hub')).toEqual(['hub', '--locations', 'default']);
  });

  it('serves the first worker location past a job location, and leaves the others their Deployments', () => {
    const chart = render(
      'locations.yaml',
      [
        'worker:',
        '  inHub: true',
        'scheduler:',
        '  inWorker: true',
        ...JOB_THEN_TWO_WORKER_LOCATIONS,
        '',
      ].join('\n'),
    );
    expect(argsOf(chart, 'meerkat-hub')).toEqual(['hub', '--locations', 'eu', '--with-scheduler']);
    expect(deploymentNames(chart)).toEqual([
      'meerkat-hub',
      'meerkat-operator',
      'meerkat-worker-jobs',
      'meerkat-worker-us',
    ]);
    expect(argsOf(chart, 'meerkat-worker-us')).toEqual(['worker', '--locations', 'us']);
  });

  it('refuses a release without a worker location, naming the value', () => {
    expect(() =>
      render('jobs-only.yaml', ['worker:', '  inHub: true', 'locations:', ...JOB_LOCATION, ''].join('\n')),
    ).toThrow(/worker.inHub needs a location whose executor is worker/);
  });

  it("keeps the workers' blocked ranges and extra egress from the hub that checks", () => {
    const extra = '{ to: [{ ipBlock: { cidr: 192.0.2.10/32 } }], ports: [{ port: 8443 }] }';
    const values = (inHub: boolean) =>
      [
        'worker:',
        `  inHub: ${inHub}`,
        'networkPolicy:',
        '  blockedCidrs: [10.244.0.0/16]',
        '  extraEgress:',
        `    worker: [${extra}]`,
        '',
      ].join('\n');
    const apart = render('apart.yaml', values(false));
    expect(hubExcepts(apart)).not.toContain('10.244.0.0/16');
    const together = render('together.yaml', values(true));
    expect(hubExcepts(together)).toContain('10.244.0.0/16');
    expect(hubExcepts(together)).toEqual(expect.arrayContaining(['169.254.0.0/16']));
    const hubCidrs = (chart: RenderedChart) =>
      (chart.find('NetworkPolicy', 'meerkat-hub') as Policy).spec.egress.flatMap(
        (r) => r.to?.map((peer) => peer.ipBlock?.cidr) ?? [],
      );
    expect(hubCidrs(together)).toContain('192.0.2.10/32');
    expect(hubCidrs(apart)).not.toContain('192.0.2.10/32');
  });
});
