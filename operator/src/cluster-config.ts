// Where `meerkat operator` finds its cluster, as kubectl does: KUBECONFIG, else the pod's service account, else
// ~/.kube/config. @kubernetes/client-node's loadFromDefault falls back to http://localhost:8080 when there is none
// of them, and the operator then retried that address forever; without a cluster it stops at start instead, with
// one line (issue 34).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { InvalidSettingError } from '../../hub/src/config/invalid-setting-error.js';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** The setting a start-up failure names: where the cluster's address and certificate-authority came from. */
export function clusterSetting(env: NodeJS.ProcessEnv): string {
  if (env.KUBECONFIG) return 'KUBECONFIG';
  const inPod = env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(SERVICE_ACCOUNT_TOKEN);
  return inPod ? 'KUBERNETES_SERVICE_HOST (the pod’s service account)' : 'KUBECONFIG (~/.kube/config)';
}

export function loadClusterConfig(env: NodeJS.ProcessEnv, home = homedir()): KubeConfig {
  const files = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (files.length > 0 && !files.some((file) => existsSync(file))) {
    throw new InvalidSettingError('KUBECONFIG', `no kubeconfig file at ${files.join(delimiter)}`);
  }
  const inPod = env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(SERVICE_ACCOUNT_TOKEN);
  if (files.length === 0 && !inPod && !existsSync(join(home, '.kube', 'config'))) {
    throw new InvalidSettingError(
      'KUBECONFIG',
      'no cluster to connect to: not in a pod (no service account) and no ~/.kube/config; set it to a kubeconfig file',
    );
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  return kubeConfig;
}
