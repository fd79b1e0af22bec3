// `meerkat operator`: the Kubernetes controller. It acts in the hub with its own API key (one organization per
// installation) and finds the cluster as kubectl does (in-cluster ServiceAccount, else KUBECONFIG).
import type { Command } from 'commander';
import { createHubClient } from '../../hub/src/client/hub-client.js';
import { createLogger } from '../../hub/src/log/logger.js';
import { createMetricsRegistry } from '../../hub/src/system/metrics-registry.js';
import { startMetricsServer } from '../../hub/src/http/metrics-server.js';
import { checkApiServer } from './api-server-check.js';
import { clusterSetting, loadClusterConfig } from './cluster-config.js';
import { startHealthServer } from './health-server.js';
import { loadOperatorSettings } from './operator-settings.js';
import { parseProjectPolicy } from './project-tenancy.js';
import { startOperator } from './start-operator.js';
import { consoleMonitorPath, consoleRunPath } from '../../hub/src/contract/console-paths.js';

export function registerOperatorCommand(program: Command): void {
  program
    .command('operator')
    .description('run the Kubernetes controller that syncs Monitor resources into the hub')
    .action(async () => {
      const settings = loadOperatorSettings(process.env);
      const log = createLogger(settings.LOG_LEVEL, { process: 'operator' });
      const kubeConfig = loadClusterConfig(process.env);
      await checkApiServer(kubeConfig, {
        setting: clusterSetting(process.env),
        waitSeconds: settings.STARTUP_WAIT_SECONDS,
        log,
      });
      const registry = createMetricsRegistry('operator');
      const leaseMs = settings.OPERATOR_LEASE_SECONDS * 1000;
      const publicUrl = settings.MEERKAT_PUBLIC_URL ?? settings.MEERKAT_URL;
      const hub = createHubClient(settings.MEERKAT_URL, settings.MEERKAT_API_KEY, {
        timeoutMs: settings.OPERATOR_HUB_TIMEOUT_SECONDS * 1000,
      });
      const operator = startOperator({
        kubeConfig,
        hub,
        windows: hub,
        log,
        registry,
        resyncMs: settings.OPERATOR_RESYNC_SECONDS * 1000,
        refreshMs: settings.OPERATOR_STATUS_SECONDS * 1000,
        workers: settings.OPERATOR_WORKERS,
        ...(settings.OPERATOR_WATCH_NAMESPACE === undefined
          ? {}
          : { watchNamespace: settings.OPERATOR_WATCH_NAMESPACE }),
        ...(settings.OPERATOR_CLUSTER_NAME === undefined
          ? {}
          : { clusterName: settings.OPERATOR_CLUSTER_NAME }),
        hubGraceMs: settings.OPERATOR_HUB_GRACE_SECONDS * 1000,
        projects: parseProjectPolicy(settings.OPERATOR_NAMESPACE_PROJECTS),
        // The hub's web console (docs/console.md), so `kubectl describe` leads to the pages people read.
        runUrl: (runId) => new URL(consoleRunPath(runId), publicUrl).toString(),
        monitorUrl: (id) => new URL(consoleMonitorPath(id), publicUrl).toString(),
        ...(settings.OPERATOR_LEADER_ELECTION === 'true'
          ? {
              leaderElection: {
                namespace: settings.POD_NAMESPACE,
                leaseName: settings.OPERATOR_LEASE_NAME,
                identity: settings.POD_NAME,
                leaseDurationMs: leaseMs,
                // As client-go's defaults (15 s lease, 10 s renew deadline): a third of the lease.
                renewIntervalMs: Math.floor(leaseMs / 3),
              },
            }
          : {}),
      });
      const metrics = await startMetricsServer(registry, settings.METRICS_PORT, settings.HOST, {
        bearerToken: settings.METRICS_BEARER_TOKEN,
      });
      const health = await startHealthServer(operator, settings.HEALTH_PORT, settings.HOST);
      log.info({ metrics: metrics.url, health: health.url }, 'operator serving metrics and probes');
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(signal, () => {
          log.info({ signal }, 'operator stopping');
          void operator
            .stop()
            .then(() => Promise.all([metrics.close(), health.close()]))
            .then(() => process.exit(0));
        });
      }
    });
}
