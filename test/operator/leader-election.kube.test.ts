// Two operator replicas (in-process, distinct identities) on the real kube-apiserver: only the Lease holder
// reconciles and writes; when it stops the other takes over, and a holder that vanished without releasing the
// Lease is replaced once the lease duration passes. Short leases keep it quick; nothing asserts how long it took.
import { CoordinationV1Api, V1MicroTime } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { adminKubeConfig, eventually } from '../kube/test-cluster.js';
import {
  monitorsIn,
  recordingHub,
  sampleNamed,
  setUpOperatorTests,
  untilSynced,
} from './operator-fixture.js';

const setup = setUpOperatorTests('operator-lease');

function replica(identity: string, leaseName: string) {
  const recorder = recordingHub(setup.hub);
  const operator = setup.startTestOperator({
    hub: recorder.client,
    leaderElection: {
      namespace: setup.namespace.name,
      leaseName,
      identity,
      leaseDurationMs: 1500,
      renewIntervalMs: 250,
    },
  });
  return { operator, writes: recorder.writes };
}

const leaseHolder = async (leaseName: string) =>
  (
    await adminKubeConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: setup.namespace.name, name: leaseName })
  ).spec?.holderIdentity;

describe('operator leader election', () => {
  it('lets only the Lease holder write, and hands over when it stops', async () => {
    const first = replica('replica-a', 'handover');
    await eventually('replica-a leading', () => Promise.resolve(first.operator.isLeader()));
    const second = replica('replica-b', 'handover');
    const monitors = monitorsIn(setup.namespace.name);

    await monitors.create(sampleNamed(setup.namespace.name, 'while-a-leads'));
    const early = await untilSynced(setup.namespace.name, 'while-a-leads');
    expect(await leaseHolder('handover')).toBe('replica-a');
    expect(first.writes).toContain(early.metadata.uid);
    expect(second.writes).toEqual([]);
    expect(second.operator.isLeader()).toBe(false);
    // A standby replica is ready: it is healthy and only waiting for the Lease.
    expect(second.operator.ready().ok).toBe(true);

    await first.operator.stop();
    await eventually('replica-b leading', () => Promise.resolve(second.operator.isLeader()));
    expect(await leaseHolder('handover')).toBe('replica-b');
    const writesBefore = first.writes.length;
    await monitors.create(sampleNamed(setup.namespace.name, 'while-b-leads'));
    const late = await untilSynced(setup.namespace.name, 'while-b-leads');
    expect(second.writes).toContain(late.metadata.uid);
    expect(first.writes).toHaveLength(writesBefore);
  });

  it('takes over a Lease whose holder stopped renewing once it expires', async () => {
    // A holder that crashed: it never renews and never releases.
    await adminKubeConfig()
      .makeApiClient(CoordinationV1Api)
      .createNamespacedLease({
        namespace: setup.namespace.name,
        body: {
          metadata: { name: 'expiry' },
          spec: {
            holderIdentity: 'crashed-replica',
            leaseDurationSeconds: 2,
            renewTime: new V1MicroTime(Date.now()),
          },
        },
      });
    const survivor = replica('replica-c', 'expiry');
    await eventually('replica-c leading after the lease expired', () =>
      Promise.resolve(survivor.operator.isLeader()),
    );
    expect(await leaseHolder('expiry')).toBe('replica-c');
    await monitorsIn(setup.namespace.name).create(sampleNamed(setup.namespace.name, 'after-expiry'));
    const resource = await untilSynced(setup.namespace.name, 'after-expiry');
    expect(survivor.writes).toContain(resource.metadata.uid);
  });
});
