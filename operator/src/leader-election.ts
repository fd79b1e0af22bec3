// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it: a candidate takes the
// Lease when it is free or its holder has not renewed it for a lease duration (judged by this process's own clock
// from when it last saw the record change, so clock skew between replicas does not matter), the holder renews it
// every `renewIntervalMs`, and a holder that cannot renew within the lease duration stops leading before another
// replica may take over. Every write is a compare-and-swap on the resourceVersion, so two candidates never both win.
import {
  CoordinationV1Api,
  V1MicroTime,
  type KubeConfig,
  type V1Lease,
  type V1LeaseSpec,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { kubeStatusOf } from '../../hub/src/kube/kube-status.js';

export interface LeaderElectionOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  leaseName: string;
  identity: string;
  leaseDurationMs: number;
  renewIntervalMs: number;
  onStartedLeading: () => void;
  /** Called when leadership is lost or given up; the caller must stop writing before it resolves. */
  onStoppedLeading: () => Promise<void>;
  log: Logger;
  now?: () => Date;
}

export interface LeaderElection {
  isLeader(): boolean;
  /** Why the latest attempt could not reach the Lease (not a lost race), or undefined. */
  lastError(): string | undefined;
  /** Stops competing; a holder gives the Lease up so another replica takes over at once. */
  stop(): Promise<void>;
}

export function startLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const api = options.kubeConfig.makeApiClient(CoordinationV1Api);
  const now = options.now ?? (() => new Date());
  const target = { namespace: options.namespace, name: options.leaseName };
  let leading = false;
  let stopped = false;
  let lastRenewed = 0;
  let lastError: string | undefined;
  /** The record last seen and when (by our clock) it last changed: the basis of "the holder is gone". */
  let observed: { key: string; at: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wake: () => void = () => {};
  // The check runs once per renew interval, so giving up one interval early keeps us ahead of the expiry.
  const renewDeadlineMs = options.leaseDurationMs - options.renewIntervalMs;

  const spec = (previous?: V1LeaseSpec): V1LeaseSpec => {
    // MicroTime: the API server refuses a renewTime without six fractional digits, which a plain Date lacks.
    const time = new V1MicroTime(now().getTime());
    const takingOver = previous?.holderIdentity !== options.identity;
    return {
      holderIdentity: options.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(options.leaseDurationMs / 1000)),
      acquireTime: takingOver ? time : (previous?.acquireTime ?? time),
      renewTime: time,
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (takingOver && previous ? 1 : 0),
    };
  };

  /** One attempt to acquire or renew; true when this process holds the Lease afterwards. */
  async function tryAcquireOrRenew(): Promise<boolean> {
    let lease: V1Lease;
    try {
      lease = await api.readNamespacedLease(target);
    } catch (error) {
      if (kubeStatusOf(error) !== 404) throw error;
      await api.createNamespacedLease({
        namespace: options.namespace,
        body: { metadata: { name: options.leaseName }, spec: spec() },
      });
      return true;
    }
    const holder = lease.spec?.holderIdentity ?? '';
    const key = `${holder}|${String(lease.spec?.renewTime ?? '')}`;
    const at = now().getTime();
    if (observed?.key !== key) observed = { key, at };
    const expired = at - observed.at > options.leaseDurationMs;
    if (holder !== '' && holder !== options.identity && !expired) return false;
    await api.replaceNamespacedLease({ ...target, body: { ...lease, spec: spec(lease.spec) } });
    return true;
  }

  async function step(): Promise<void> {
    let holds = false;
    try {
      holds = await tryAcquireOrRenew();
      lastError = undefined;
      if (holds) lastRenewed = now().getTime();
    } catch (error) {
      const status = kubeStatusOf(error);
      lastError = status === 409 ? undefined : error instanceof Error ? error.message : String(error);
      // A 409 means another candidate wrote first; anything else is an API problem. Either way: not renewed.
      options.log.debug({ err: error }, 'lease acquire/renew failed');
    }
    if (holds && !leading && !stopped) {
      leading = true;
      options.log.info({ identity: options.identity }, 'became leader');
      options.onStartedLeading();
    } else if (!holds && leading && now().getTime() - lastRenewed >= renewDeadlineMs) {
      // Another replica may take the Lease one lease duration after our last renewal: stop writing before that.
      leading = false;
      options.log.warn({ identity: options.identity }, 'lost the lease; stopping');
      await options.onStoppedLeading();
    }
  }

  const loop = (async () => {
    while (!stopped) {
      await step();
      if (stopped) break;
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.renewIntervalMs);
        wake = resolve;
      });
    }
  })();

  return {
    isLeader: () => leading,
    lastError: () => lastError,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake();
      await loop;
      if (!leading) return;
      leading = false;
      await options.onStoppedLeading();
      await release().catch((error: unknown) => options.log.warn({ err: error }, 'could not release lease'));
    },
  };

  async function release(): Promise<void> {
    const lease = await api.readNamespacedLease(target);
    if (lease.spec?.holderIdentity !== options.identity) return;
    // An empty holder is free for anyone at once (client-go's ReleaseOnCancel does the same).
    await api.replaceNamespacedLease({
      ...target,
      body: {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', renewTime: new V1MicroTime(now().getTime()) },
      },
    });
  }
}
