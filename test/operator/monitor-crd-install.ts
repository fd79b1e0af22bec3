// Installs the generated crds/monitors.meerkat.dev.yaml on the shared test cluster, as `kubectl apply` would, and
// reads the samples as resources. Several files may install it at once: the definition is the same for all.
import { readFileSync, readdirSync } from 'node:fs';
import { ApiextensionsV1Api, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import {
  isMonitorResource,
  MONITOR_API_VERSION,
  MONITOR_KIND,
} from '../../hub/src/contract/monitor-resource.js';
import type { MonitorResource } from '../../operator/src/monitor-resource-status.js';
import { adminKubeConfig, eventually } from '../kube/test-cluster.js';

const crdFile = new URL('../../crds/monitors.meerkat.dev.yaml', import.meta.url);
const samplesDirectory = new URL('../../config/samples/monitors/', import.meta.url);

export function readGeneratedCrd(file: URL = crdFile): V1CustomResourceDefinition {
  return parse(readFileSync(file, 'utf8')) as V1CustomResourceDefinition;
}

/** Creates the CRD (the Monitor one unless `file` names another) unless it exists, then waits until it is served. */
export async function installMonitorCrd(file: URL = crdFile): Promise<V1CustomResourceDefinition> {
  const api = adminKubeConfig().makeApiClient(ApiextensionsV1Api);
  const body = readGeneratedCrd(file);
  await api.createCustomResourceDefinition({ body }).catch((error: unknown) => {
    if ((error as { code?: number }).code !== 409) throw error;
  });
  return eventually(`the CRD ${body.metadata?.name} becoming Established`, async () => {
    const crd = await api.readCustomResourceDefinition({ name: body.metadata?.name ?? '' });
    const established = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    return established ? crd : undefined;
  });
}

export type MonitorSample = Pick<MonitorResource, 'apiVersion' | 'kind' | 'spec'> & {
  metadata: { name: string; namespace?: string };
};

/** Every sample as a Monitor resource in `namespace`; API-form samples are wrapped, named after their `name`. */
export function readMonitorSamples(namespace: string): Array<{ file: string; resource: MonitorSample }> {
  return readdirSync(samplesDirectory)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => {
      const document = parse(readFileSync(new URL(file, samplesDirectory), 'utf8')) as Record<
        string,
        unknown
      >;
      if (isMonitorResource(document)) {
        const resource = document as unknown as MonitorSample;
        return { file, resource: { ...resource, metadata: { ...resource.metadata, namespace } } };
      }
      const name = String(document.name)
        .toLowerCase()
        .replace(/[^a-z0-9-]+/g, '-');
      return {
        file,
        resource: {
          apiVersion: MONITOR_API_VERSION,
          kind: MONITOR_KIND,
          metadata: { name, namespace },
          spec: document,
        },
      };
    });
}
