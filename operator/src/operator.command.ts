// `meerkat operator`: the Kubernetes controller. It acts in the hub with its own API key (one organization per
// installation) and finds the cluster as kubectl does (in-cluster ServiceAccount, else KUBECONFIG).
import { KubeConfig } from '@kubernetes/client-node';
import type { Command } from 'commander';
import { createHubClient } from '../../hub/src/cli/hub-client.js';
import { createLogger } from '../../hub/src/log/logger.js';
import { loadOperatorSettings } from './operator-settings.js';
import { startOperator } from './start-operator.js';

export function registerOperatorCommand(program: Command): void {
  program
    .command('operator')
    .description('run the Kubernetes controller that syncs Monitor resources into the hub')
    .action(() => {
      const settings = loadOperatorSettings(process.env);
      const log = createLogger(settings.LOG_LEVEL, { process: 'operator' });
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromDefault();
      const operator = startOperator({
        kubeConfig,
        hub: createHubClient(settings.MEERKAT_URL, settings.MEERKAT_API_KEY),
        log,
        resyncMs: settings.OPERATOR_RESYNC_SECONDS * 1000,
      });
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(signal, () => {
          log.info({ signal }, 'operator stopping');
          void operator.stop().then(() => process.exit(0));
        });
      }
    });
}
