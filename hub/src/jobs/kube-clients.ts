import { BatchV1Api, KubeConfig } from '@kubernetes/client-node';
import type { JobTemplate } from '../config/locations.js';

/** The cluster of a location: its own kubeconfig file, or the one the hub runs in (in-cluster or ~/.kube). */
export function kubeConfigFor(template: JobTemplate): KubeConfig {
  const config = new KubeConfig();
  if (template.kubeconfig !== undefined) config.loadFromFile(template.kubeconfig);
  else config.loadFromDefault();
  return config;
}

export function batchApiFor(config: KubeConfig): BatchV1Api {
  return config.makeApiClient(BatchV1Api);
}
