// Wires the operator together: leader election decides whether this replica runs the controller; the controller
// is the informer (resource-informer.ts) feeding the keyed queue, which runs reconcileMonitor against the hub's HTTP
// API, the informer's cache and the Kubernetes API. Everything it talks to is passed in, so tests run several
// instances in-process.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { HealthCheck } from './health-server.js';
import type { MonitorHealthRow } from '../../hub/src/client/hub-client.js';
import { healthDiffers, startFleetHealthSweep, type FleetHealth } from './fleet-health.js';
import { createHubAvailability, HubUnreachableError } from './hub-availability.js';
import { createHubCopies, type HubCopies } from './hub-copies.js';
import { clusterIdentity } from './cluster-identity.js';
import { createOrphanSweep } from './managed-monitors.js';
import { createDepartedMonitors } from './departed-monitors.js';
import { keepAliveKubeConfig } from './keep-alive-kube-config.js';
import { kubeMonitorResources, listMonitorUids } from './kube-monitor-resources.js';
import { startLeaderElection, type LeaderElection } from './leader-election.js';
import { kubeMonitorEvents } from './monitor-events.js';
import { createMonitorIndex } from './monitor-index.js';
import { MONITOR_PLURAL, type MonitorResource } from './monitor-resource-status.js';
import { createOperatorMetrics } from './operator-metrics.js';
import { createPutBatcher } from './put-batcher.js';
import type { ProjectPolicy } from './project-tenancy.js';
import { reconcileMonitor, type HubMonitors, type ReconcileDependencies } from './reconcile-monitor.js';
import { createRequeueingQueue, type RequeueingQueue } from './reconcile-result.js';
import { startResourceInformer, WATCH_BACKOFF, type ResourceInformer } from './resource-informer.js';
import type { HubWindows } from './maintenance-window/reconcile-window.js';
import { startWindowController } from './maintenance-window/window-controller.js';

export interface LeaderElectionSettings {
  namespace: string;
  leaseName: string;
  /** Unique per replica (the Pod name). */
  identity: string;
  leaseDurationMs: number;
  renewIntervalMs: number;
}

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  hub: HubMonitors;
  /** The hub's maintenance-window API: MaintenanceWindow resources are reconciled only when given. */
  windows?: HubWindows;
  log: Logger;
  resyncMs: number;
  /** Every Monitor's health is read in one paged sweep this often (the resync period when absent); ADR 0049. */
  refreshMs?: number;
  /** Reconciles at once (default 4). */
  workers?: number;
  /** How long the hub may not answer before Monitors say so (HubReachable=False); default 5 minutes. */
  hubGraceMs?: number;
  /** Namespace to project mapping (`parseProjectPolicy('*=*')`: any project). */
  projects: ProjectPolicy;
  /** The URL of a run, for status.lastRunUrl. */
  runUrl: (runId: string) => string;
  /** The console page of a hub monitor id, for status.consoleUrl. */
  monitorUrl: (monitorId: string) => string;
  /** Only this namespace's Monitors (OPERATOR_WATCH_NAMESPACE); every namespace when absent. */
  watchNamespace?: string;
  /**
   * OPERATOR_CLUSTER_NAME: labels every hub monitor this operator puts, so its sweep collects only its own
   * (ADR 0065). When absent, a hash of the cluster's CA (cluster-identity.ts): each cluster its own.
   */
  clusterName?: string;
  /** Absent: this process is the only replica and always leads. */
  leaderElection?: LeaderElectionSettings;
  /** The process's registry for the operator metrics; a private one when absent. */
  registry?: Registry;
  /** See ResourceInformerOptions.resumeFrom. */
  resumeWatchFrom?: string;
  now?: () => Date;
}

export interface RunningOperator {
  isLeader: () => boolean;
  live: () => HealthCheck;
  ready: () => HealthCheck;
  stop(): Promise<void>;
}

/** Any answer to a GET of an id no monitor has (404 included) means the hub is there. */
const PROBE_ID = 'meerkat-operator-probe';

export function startOperator(operatorOptions: OperatorOptions): RunningOperator {
  // Every API client made from it reuses its connections (keep-alive-kube-config.ts): no TLS handshake per call.
  const options = { ...operatorOptions, kubeConfig: keepAliveKubeConfig(operatorOptions.kubeConfig) };
  const now = options.now ?? (() => new Date());
  const availability = createHubAvailability({
    probe: () => options.hub.getMonitor(PROBE_ID),
    graceMs: options.hubGraceMs ?? 300_000,
    log: options.log,
    now,
  });
  const index = createMonitorIndex();
  // A fleet's PUTs go to the hub a hundred a request (ADR 0054): its rate limit counts requests, not Monitors.
  const putMonitor = createPutBatcher(options.hub, () =>
    options.log.warn('the hub has no POST /monitor/bulk (an older hub): each Monitor is put on its own'),
  );
  const hub: HubMonitors = { ...options.hub, putMonitor };
  const identity =
    operatorOptions.clusterName === undefined
      ? clusterIdentity(operatorOptions.kubeConfig)
      : { name: operatorOptions.clusterName, source: 'OPERATOR_CLUSTER_NAME' };
  const clusterName = identity.name;
  options.log.info(
    { cluster: clusterName, from: identity.source },
    `this operator's hub monitors are labelled meerkat.dev/cluster=${clusterName}`,
  );
  const departed = createDepartedMonitors();
  const dependencies = (
    informer: ResourceInformer<MonitorResource>,
    fleetHealth: FleetHealth,
    hubCopies: HubCopies,
  ): ReconcileDependencies => ({
    clusterName,
    departed,
    hub,
    resources: kubeMonitorResources(options.kubeConfig, informer),
    events: kubeMonitorEvents(options.kubeConfig, options.log),
    now,
    log: options.log,
    availability,
    resourceOfMonitorId: index.keyOfUid,
    fleetHealth,
    hubCopies,
    projects: options.projects,
    runUrl: options.runUrl,
    monitorUrl: options.monitorUrl,
    refreshMs: options.refreshMs,
  });
  let resumeFrom = options.resumeWatchFrom;
  let controller:
    | { informer: ResourceInformer<MonitorResource>; queue: RequeueingQueue; stop(): Promise<void> }
    | undefined;
  /** A synced Monitor whose row says its health moved is reconciled (a routine pass, behind any change). */
  const onHealthRow =
    (queue: RequeueingQueue, informer: ResourceInformer<MonitorResource>) => (row: MonitorHealthRow) => {
      const key = index.keyOfUid(row.monitorId);
      const resource = key && informer.get(key);
      if (!key || !resource || resource.metadata.deletionTimestamp) return;
      if (resource.status?.monitorId === row.monitorId && healthDiffers(resource.status, row, now()))
        queue.enqueue(key);
    };
  const metrics = createOperatorMetrics(options.registry ?? new Registry(), {
    isLeader: () => controller !== undefined,
    queueDepth: () => controller?.queue.depth() ?? 0,
    conditionCounts: () => (controller ? index.conditionCounts() : []),
    hubReachable: availability.isReachable,
  });

  function startController() {
    index.clear();
    departed.clear();
    // Monitors deleted while no controller watched, or whose deletion failed, go at each complete listing of the
    // hub once the cache is listed too (ADR 0065); the informer's first listing sweeps the hub's last one.
    const sweep = createOrphanSweep({
      clusterName,
      watchNamespace: options.watchNamespace,
      cacheListed: () => controller?.informer.hasListed() ?? false,
      isCached: (uid) => index.keyOfUid(uid) !== undefined,
      liveUids: () => listMonitorUids(options.kubeConfig, options.watchNamespace),
      deleteMonitor: (id) => options.hub.deleteMonitor(id),
      log: options.log,
    });
    // The hub's copies, listed now and at each planned resync: passes over synced Monitors compare with them.
    const hubCopies = createHubCopies({
      listMonitors: () => options.hub.listMonitors({}),
      log: options.log,
      onListed: (monitors) => void sweep.hubListed(monitors),
    });
    hubCopies.refresh();
    const queue = createRequeueingQueue({
      reconcile: (key) => metrics.measure(() => reconcileMonitor(key, reconcileDeps)),
      log: options.log,
      random: Math.random,
      ...(options.workers === undefined ? {} : { workers: options.workers }),
      ...(options.refreshMs === undefined ? {} : { refreshMs: options.refreshMs }),
      waitBeforeRetry: (error) =>
        error instanceof HubUnreachableError ? availability.whenBack() : undefined,
      // An edit, a creation, a deletion or run-now goes ahead of the fleet's refreshes (ADR 0049).
      isUrgent: index.isPending,
    });
    const informer = startResourceInformer<MonitorResource>({
      kubeConfig: options.kubeConfig,
      plural: MONITOR_PLURAL,
      onChange: (key, change, resource) => {
        // A deleted Monitor's hub monitor goes in the key's next pass, before a Monitor re-created under its name.
        if (change === 'DELETED') departed.record(key, resource.metadata.uid);
        // Own status and finalizer writes come back as MODIFIED events; only what reconcile acts on counts.
        if (index.observe(change, resource) || !queue.has(key)) queue.enqueue(key);
      },
      onListed: () => void sweep.cacheListed(),
      log: options.log,
      namespace: options.watchNamespace,
      resyncMs: options.resyncMs,
      ...WATCH_BACKOFF,
      onRestart: () => metrics.countWatchRestart(),
      onRelist: () => {
        metrics.countRelist();
        hubCopies.refresh();
      },
      resumeFrom,
    });
    // Health in bulk (ADR 0049): one paged read per refresh period (the resync period when none is set).
    const fleetHealth = startFleetHealthSweep({
      listMonitorHealth: () => options.hub.listMonitorHealth(),
      onRow: onHealthRow(queue, informer),
      everyMs: options.refreshMs ?? options.resyncMs,
      log: options.log,
    });
    const reconcileDeps = dependencies(informer, fleetHealth, hubCopies);
    resumeFrom = undefined;
    const windows =
      options.windows === undefined
        ? undefined
        : startWindowController({
            kubeConfig: options.kubeConfig,
            hub: options.windows,
            log: options.log,
            availability,
            resyncMs: options.resyncMs,
            now,
            refreshMs: options.refreshMs,
            namespace: options.watchNamespace,
            projects: options.projects,
          });
    options.log.info({ namespace: options.watchNamespace ?? 'all' }, 'controller started: watching Monitors');
    controller = {
      informer,
      queue,
      async stop() {
        controller = undefined;
        await informer.stop();
        await fleetHealth.stop();
        await queue.stop();
        await hubCopies.stop();
        await sweep.settled();
        await windows?.stop();
      },
    };
  }

  let election: LeaderElection | undefined;
  if (options.leaderElection) {
    election = startLeaderElection({
      kubeConfig: options.kubeConfig,
      ...options.leaderElection,
      onStartedLeading: startController,
      onStoppedLeading: async () => controller?.stop(),
      log: options.log,
      ...(options.now ? { now: options.now } : {}),
    });
  } else {
    startController();
  }
  let stopped = false;

  return {
    isLeader: () => controller !== undefined,
    live: () => (stopped ? { ok: false, reason: 'stopping' } : { ok: true, reason: 'running' }),
    ready: () => {
      if (stopped) return { ok: false, reason: 'stopping' };
      if (!controller) {
        const problem = election?.lastError();
        // A standby is ready: it is healthy and takes over when the leader goes; unless it cannot even compete.
        return problem === undefined
          ? { ok: true, reason: 'standing by; another replica holds the lease' }
          : { ok: false, reason: `cannot reach the API server to compete for the lease: ${problem}` };
      }
      return controller.informer.isEstablished()
        ? { ok: true, reason: 'leading; the Monitor watch is established' }
        : { ok: false, reason: 'leading; the Monitor watch is not established yet' };
    },
    async stop() {
      stopped = true;
      await election?.stop();
      await controller?.stop();
      availability.stop();
    },
  };
}
