// Smoke test of the real control plane beyond custom resources: RBAC really refuses, Leases (leader election)
// work with optimistic concurrency, and the controller-manager turns a Job into a Pod and the Pod's end into the
// Job's completion.
import {
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  V1MicroTime,
  type V1Job,
  type V1Lease,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminKubeConfig,
  createTestNamespace,
  eventually,
  finishJobPod,
  kubeConfigForServiceAccount,
  type TestNamespace,
} from './test-cluster.js';

const statusCode = (error: unknown) => (error as { code?: number }).code;

describe('RBAC, Leases and Jobs on the real control plane', () => {
  const kubeConfig = adminKubeConfig();
  let namespace: TestNamespace;

  beforeAll(async () => {
    namespace = await createTestNamespace('core-smoke');
  });
  afterAll(() => namespace?.delete());

  it('refuses a ServiceAccount (403) the verb its Role does not grant, and allows the one it does', async () => {
    const reader = await kubeConfigForServiceAccount(namespace.name, 'config-reader', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
    ]);
    const core = reader.makeApiClient(CoreV1Api);

    const listed = await core.listNamespacedConfigMap({ namespace: namespace.name });
    const creating = core.createNamespacedConfigMap({
      namespace: namespace.name,
      body: { metadata: { name: 'written-by-reader' } },
    });

    expect(listed.items).toBeInstanceOf(Array);
    await expect(creating.then(() => 200, statusCode)).resolves.toBe(403);
  });

  it('creates a Lease, renews it, and refuses a renewal based on a stale version (409)', async () => {
    const coordination = kubeConfig.makeApiClient(CoordinationV1Api);
    const lease: V1Lease = {
      metadata: { name: 'smoke-leader' },
      spec: { holderIdentity: 'replica-a', leaseDurationSeconds: 15, renewTime: new V1MicroTime() },
    };
    const created = await coordination.createNamespacedLease({ namespace: namespace.name, body: lease });

    const renewTime = new V1MicroTime(Date.now() + 1000);
    const renewed = await coordination.replaceNamespacedLease({
      namespace: namespace.name,
      name: 'smoke-leader',
      body: { ...created, spec: { ...created.spec, renewTime } },
    });
    const staleRenewal = coordination.replaceNamespacedLease({
      namespace: namespace.name,
      name: 'smoke-leader',
      body: { ...created, spec: { ...created.spec, holderIdentity: 'replica-b' } },
    });

    expect(renewed.spec?.holderIdentity).toBe('replica-a');
    // The client hands MicroTime fields back as strings despite their type, so compare instants.
    expect(new Date(renewed.spec?.renewTime ?? 0).getTime()).toBe(renewTime.getTime());
    expect(renewed.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
    await expect(staleRenewal.then(() => 200, statusCode)).resolves.toBe(409);
  });

  it('gives a Job a Pod, and marks the Job Complete once the test reports the Pod Succeeded', async () => {
    const batch = kubeConfig.makeApiClient(BatchV1Api);
    const job: V1Job = {
      metadata: { name: 'smoke-check' },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'check', image: 'meerkat:test', args: ['test', '--once'] }],
          },
        },
      },
    };
    await batch.createNamespacedJob({ namespace: namespace.name, body: job });

    const pod = await finishJobPod(namespace.name, 'smoke-check', 'Succeeded');
    expect(pod.spec?.containers[0]?.args).toEqual(['test', '--once']);

    const finished = await eventually('the Job completing', async () => {
      const current = await batch.readNamespacedJob({ namespace: namespace.name, name: 'smoke-check' });
      const complete = current.status?.conditions?.find((condition) => condition.type === 'Complete');
      return complete?.status === 'True' && current;
    });
    expect(finished.status?.succeeded).toBe(1);
  });
});
