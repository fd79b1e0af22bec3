// The chart on the node as `helm install --post-renderer` would put it there: rendered by the project's renderer
// (test/chart/render-chart.ts), adapted to a node without a CNI plugin (adaptToNode), then CRDs, pre-install hooks
// in weight order (the migrate Job run to completion and deleted on success, per its hook-delete-policy) and the
// rest in Helm's kind order. Uninstall deletes the release's objects in reverse, as `helm uninstall` does.
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { chartDir, type KubeObject } from '../chart/render-chart.js';
import { eventually } from '../harness/eventually.js';
import type { KubeNodeInfo } from './start-node.js';

/** Helm's install order (pkg/releaseutil/kind_sorter.go), for the kinds this chart makes; others go last. */
const INSTALL_ORDER = ['Namespace', 'NetworkPolicy', 'PodDisruptionBudget', 'ServiceAccount', 'Secret']
  .concat([
    'ConfigMap',
    'CustomResourceDefinition',
    'ClusterRole',
    'ClusterRoleBinding',
    'Role',
    'RoleBinding',
  ])
  .concat(['Service', 'Pod', 'Deployment', 'Job']);
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
]);
const HOOK = 'helm.sh/hook';

export interface NodeAdaptation {
  node: KubeNodeInfo;
  /** 127.0.0.1 and the port the apiserver serves on, for the in-cluster clients of the hub and the operator. */
  apiserver: { host: string; port: number };
  hubUrl: string;
  /** METRICS_PORT of each Deployment, by name: on one host network every process needs a port of its own. */
  metricsPorts: Record<string, number>;
}

type Container = {
  name: string;
  env?: Array<{ name: string; value?: string }>;
  ports?: Array<{ name?: string; containerPort: number }>;
};
type PodTemplate = { spec: { hostNetwork?: boolean; tolerations?: object[]; containers: Container[] } };

const setEnv = (container: Container, name: string, value: string) => {
  container.env = [...(container.env ?? []).filter((entry) => entry.name !== name), { name, value }];
};

/**
 * What a node without a CNI plugin needs of the chart's pods, and nothing else: the host network, the node's
 * taint tolerated, a metrics port per process, and loopback addresses where the chart names a Service (there is no
 * kube-proxy or DNS here): the operator's MEERKAT_URL and the apiserver that in-cluster clients find.
 */
export function adaptToNode(objects: KubeObject[], adaptation: NodeAdaptation): KubeObject[] {
  return objects.map((original) => {
    if (original.kind !== 'Deployment' && original.kind !== 'Job') return original;
    const object = structuredClone(original);
    const template = (object.spec as { template: PodTemplate }).template;
    template.spec.hostNetwork = true;
    template.spec.tolerations = [
      ...(template.spec.tolerations ?? []),
      { ...adaptation.node.taint, operator: 'Equal' },
    ];
    for (const container of template.spec.containers) {
      const metrics = container.ports?.find((port) => port.name === 'metrics');
      const metricsPort = adaptation.metricsPorts[object.metadata.name];
      if (metrics) {
        if (metricsPort === undefined) throw new Error(`no metrics port for ${object.metadata.name}`);
        metrics.containerPort = metricsPort;
        setEnv(container, 'METRICS_PORT', String(metricsPort));
      }
      if (container.env?.some((entry) => entry.name === 'MEERKAT_URL'))
        setEnv(container, 'MEERKAT_URL', adaptation.hubUrl);
      setEnv(container, 'KUBERNETES_SERVICE_HOST', adaptation.apiserver.host);
      setEnv(container, 'KUBERNETES_SERVICE_PORT', String(adaptation.apiserver.port));
    }
    return object;
  });
}

const orderOf = (kind: string) => {
  const index = INSTALL_ORDER.indexOf(kind);
  return index === -1 ? INSTALL_ORDER.length : index;
};
const byKind = (a: KubeObject, b: KubeObject) => orderOf(a.kind) - orderOf(b.kind);
const weightOf = (object: KubeObject) => Number(object.metadata.annotations?.['helm.sh/hook-weight'] ?? 0);
const isPreInstallHook = (object: KubeObject) =>
  (object.metadata.annotations?.[HOOK] ?? '').split(',').includes('pre-install');

export interface Release {
  /** The release's own objects (hooks excluded), as applied. */
  objects: KubeObject[];
  /** Every hook, in the order it ran. */
  hooks: KubeObject[];
  uninstall(): Promise<void>;
}

function inNamespace(object: KubeObject, namespace: string): KubernetesObject {
  if (CLUSTER_SCOPED.has(object.kind) || object.metadata.namespace) return object;
  return { ...object, metadata: { ...object.metadata, namespace } };
}

function chartCrds(): KubeObject[] {
  const dir = join(chartDir, 'crds');
  return readdirSync(dir).map((file) => parse(readFileSync(join(dir, file), 'utf8')) as KubeObject);
}

/** Whether the object is gone (a 404), for uninstall checks. */
export async function isGone(client: KubernetesObjectApi, object: KubernetesObject): Promise<boolean> {
  return client.read(object as never).then(
    () => false,
    (error: { code?: number }) => error.code === 404,
  );
}

/** `helm install`: CRDs (kept on uninstall, as Helm keeps crds/), pre-install hooks, then the release's objects. */
export async function installChart(
  kubeConfig: KubeConfig,
  namespace: string,
  objects: KubeObject[],
): Promise<Release> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const crd of chartCrds()) {
    if (await isGone(client, crd)) await client.create(crd);
  }
  const hooks = objects.filter(isPreInstallHook).sort((a, b) => weightOf(a) - weightOf(b) || byKind(a, b));
  for (const hook of hooks) {
    const created = inNamespace(hook, namespace);
    await client.create(created);
    if (hook.kind === 'Job') {
      const job = await eventually(
        `hook Job ${hook.metadata.name} to complete`,
        async () => {
          const read = (await client.read(created as never)) as {
            status?: { succeeded?: number; failed?: number };
          };
          if ((read.status?.failed ?? 0) > 0) throw new Error(`hook Job ${hook.metadata.name} failed`);
          return (read.status?.succeeded ?? 0) > 0 && read;
        },
        300_000,
      );
      if (!job) throw new Error(`hook Job ${hook.metadata.name} did not complete`);
    }
  }
  // hook-succeeded: every hook of the phase is deleted once all of them succeeded.
  for (const hook of hooks.filter((each) =>
    each.metadata.annotations?.['helm.sh/hook-delete-policy']?.includes('hook-succeeded'),
  )) {
    await client.delete(
      inNamespace(hook, namespace),
      undefined,
      undefined,
      undefined,
      undefined,
      'Background',
    );
  }
  const release = objects.filter((object) => !isPreInstallHook(object)).sort(byKind);
  for (const object of release) await client.create(inNamespace(object, namespace));
  return {
    objects: release.map((object) => inNamespace(object, namespace) as KubeObject),
    hooks,
    async uninstall() {
      for (const object of [...release].reverse()) {
        await client
          .delete(inNamespace(object, namespace), undefined, undefined, undefined, undefined, 'Background')
          .catch((error: { code?: number }) => {
            if (error.code !== 404) throw error;
          });
      }
    },
  };
}
