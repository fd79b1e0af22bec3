// GitOps health on a real kube-apiserver with a real hub (ADR 0039): a Monitor's `Ready` condition and
// `observedGeneration` as kstatus reads them, `kubectl wait --for=condition=Ready` on it, the Argo CD health script
// docs/operator.md documents run on the resource at each step, and the operator's Event reasons.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MonitorResource } from '../../operator/src/monitor-resource-status.js';
import { eventually, kubeCluster } from '../kube/test-cluster.js';
import { argoHealthOf, documentedHealthScript } from './argocd-health-script.js';
import { eventsFor, monitorsIn, sampleNamed, setUpOperatorTests } from './operator-fixture.js';

const setup = setUpOperatorTests('operator-readiness');
const script = documentedHealthScript();

beforeAll(() => {
  setup.startTestOperator();
});

const conditionOf = (resource: MonitorResource, type: string) =>
  resource.status?.conditions?.find((each) => each.type === type);

/** `kubectl wait` as docs/operator.md runs it; resolves with its exit code. */
async function kubectlWait(name: string, condition: string, timeout: string): Promise<number> {
  const args = ['--kubeconfig', kubeCluster().kubeconfigPath, '-n', setup.namespace.name, 'wait'];
  try {
    await promisify(execFile)('kubectl', [
      ...args,
      `--for=condition=${condition}`,
      `mkm/${name}`,
      `--timeout=${timeout}`,
    ]);
    return 0;
  } catch (error) {
    const { code } = error as { code?: number | string };
    if (typeof code !== 'number') throw error;
    return code;
  }
}

/** The resource once its Ready condition is `status` for `generation`. */
function untilReady(name: string, status: 'True' | 'False', generation: number) {
  return eventually(`${name} Ready=${status} for generation ${generation}`, async () => {
    const resource = await monitorsIn(setup.namespace.name).get(name);
    const ready = conditionOf(resource, 'Ready');
    return ready?.status === status && ready.observedGeneration === generation ? resource : undefined;
  });
}

describe('GitOps health of a Monitor', () => {
  it('goes Ready at its generation, Stalled on a refusal, Ready again when fixed; kubectl wait and Argo CD agree', async () => {
    const monitors = monitorsIn(setup.namespace.name);
    const created = await monitors.create(sampleNamed(setup.namespace.name, 'gitops'));
    // Before the operator's first pass Argo CD waits; kstatus would see no status at all (docs/operator.md).
    expect(argoHealthOf(script, created)).toMatchObject({ status: 'Progressing' });

    expect(await kubectlWait('gitops', 'Ready', '60s')).toBe(0);
    const accepted = await untilReady('gitops', 'True', 1);
    expect(accepted.status?.observedGeneration).toBe(1);
    expect(accepted.status?.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(conditionOf(accepted, 'Stalled')).toBeUndefined();
    expect(conditionOf(accepted, 'Reconciling')).toBeUndefined();
    expect(argoHealthOf(script, accepted)).toMatchObject({ status: 'Healthy' });

    // A generation the hub refuses: kstatus Failed (observedGeneration moves, Stalled=True), not in progress.
    await monitors.patchSpec('gitops', { frequency: { every: 0.1, unit: 'MINUTE' } });
    const refused = await untilReady('gitops', 'False', 2);
    expect(refused.status?.observedGeneration).toBe(2);
    expect(conditionOf(refused, 'Ready')).toMatchObject({ reason: 'HubRejectedSpec' });
    expect(conditionOf(refused, 'Ready')?.message).toContain(
      'the interval must be between 10 seconds and 30 days',
    );
    expect(conditionOf(refused, 'Stalled')).toMatchObject({ status: 'True', observedGeneration: 2 });
    expect(await kubectlWait('gitops', 'Stalled', '30s')).toBe(0);
    expect(await kubectlWait('gitops', 'Ready', '2s')).not.toBe(0);
    const argo = argoHealthOf(script, refused);
    expect(argo.status).toBe('Degraded');
    expect(argo.message).toContain('the interval must be between 10 seconds and 30 days');

    // Fixed: Ready at generation 3, Stalled gone.
    await monitors.patchSpec('gitops', { frequency: { every: 2, unit: 'HOUR' } });
    expect(await kubectlWait('gitops', 'Ready', '60s')).toBe(0);
    const fixed = await untilReady('gitops', 'True', 3);
    expect(fixed.status?.observedGeneration).toBe(3);
    expect(conditionOf(fixed, 'Stalled')).toBeUndefined();
    expect(argoHealthOf(script, fixed)).toMatchObject({ status: 'Healthy' });

    // A Ready condition of an older generation is no answer for the new one, to Argo CD as to kubectl wait.
    const staleForArgo = { ...fixed, metadata: { ...fixed.metadata, generation: 4 } };
    expect(argoHealthOf(script, staleForArgo)).toMatchObject({ status: 'Progressing' });

    await monitors.delete('gitops');
    await eventually('the resource gone', () => monitors.gone('gitops'));
    const reasons = await eventually('the Deleted Event', async () => {
      const events = (await eventsFor(setup.namespace.name, 'gitops')).map((event) => event.reason ?? '');
      return events.includes('Deleted') ? events : undefined;
    });
    expect(reasons).toEqual(expect.arrayContaining(['HubRejectedSpec', 'Synced', 'Deleted']));
    for (const reason of reasons) expect(reason).toMatch(/^[A-Z][a-z]+(?:[A-Z][a-z]+)*$/);
  });
});
