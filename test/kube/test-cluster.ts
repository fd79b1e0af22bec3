// What a `*.kube.test.ts` file uses of the run's shared Kubernetes cluster: an admin client, a namespace of its
// own, a client acting as a ServiceAccount with given RBAC rules, and a way to finish a Job's Pod (no kubelet
// runs Pods here, so the test plays its part by writing the Pod's status).
import { randomBytes } from 'node:crypto';
import {
  AuthorizationV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type V1ClusterRole,
  type V1Pod,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { inject } from 'vitest';
import { eventually } from '../harness/eventually.js';
import type { KubeClusterInfo } from './start-cluster.js';

export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export function kubeCluster(): KubeClusterInfo {
  const info = inject('kubeCluster');
  if (!info) {
    throw new Error(
      'no Kubernetes cluster in this run: only runs that include a *.kube.test.ts file start one ' +
        '(test/kube/global-setup.ts; in watch mode, restart vitest)',
    );
  }
  return info;
}

/** A client configuration for the cluster's admin (group system:masters). */
export function adminKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeCluster().kubeconfigPath);
  return kubeConfig;
}

/** `eventually(what, probe)`: it keeps polling while the probe throws (a resource not created yet). */
export { eventually };

export interface TestNamespace {
  name: string;
  /** Starts the deletion (the controller-manager finishes it); a namespace already gone is fine. */
  delete(): Promise<void>;
}

/** A fresh namespace named `<prefix>-<random>`, so test files sharing the cluster never see each other. */
export async function createTestNamespace(prefix = 'test'): Promise<TestNamespace> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await core.createNamespace({ body: { metadata: { name } } });
  return {
    name,
    async delete() {
      await core.deleteNamespace({ name }).catch((error: unknown) => {
        if ((error as { code?: number }).code !== 404) throw error;
      });
    },
  };
}

export interface ServiceAccountOptions {
  /**
   * ClusterRoles to create (unless they exist) and bind to the ServiceAccount cluster-wide, for clients that act
   * in every namespace (the operator). Their names are cluster-wide: give each test file its own.
   */
  clusterRoles?: V1ClusterRole[];
}

/**
 * Creates ServiceAccount `name` in namespace, grants it exactly `rules` there (a Role and RoleBinding) and the
 * `clusterRoles` everywhere, waits until the authorizer applies them, and returns a client configuration that
 * authenticates as it.
 */
export async function kubeConfigForServiceAccount(
  namespace: string,
  name: string,
  rules: V1PolicyRule[],
  options: ServiceAccountOptions = {},
): Promise<KubeConfig> {
  const admin = adminKubeConfig();
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  await waitUntilAuthorized(admin, namespace, name, rules);
  for (const clusterRole of options.clusterRoles ?? []) {
    await bindClusterRole(admin, namespace, name, clusterRole);
  }

  // TokenRequest: a short-lived token for the API server's own audience, without waiting for a token Secret.
  const { status } = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  if (!status?.token) throw new Error(`no token issued for ServiceAccount ${namespace}/${name}`);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig names no cluster');
  const user = `system:serviceaccount:${namespace}:${name}`;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [cluster],
    users: [{ name: user, token: status.token }],
    contexts: [{ name: user, cluster: cluster.name, user }],
    currentContext: user,
  });
  return kubeConfig;
}

async function bindClusterRole(
  admin: KubeConfig,
  namespace: string,
  name: string,
  clusterRole: V1ClusterRole,
) {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const roleName = clusterRole.metadata?.name ?? '';
  await rbac.createClusterRole({ body: clusterRole }).catch((error: unknown) => {
    if ((error as { code?: number }).code !== 409) throw error;
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: `${roleName}-${namespace}-${name}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  await waitUntilAuthorized(admin, namespace, name, clusterRole.rules ?? [], { clusterWide: true });
}

/** RBAC reaches the authorizer through an informer; ask it (as admin) until every rule is in force. */
async function waitUntilAuthorized(
  admin: KubeConfig,
  namespace: string,
  name: string,
  rules: V1PolicyRule[],
  { clusterWide = false } = {},
) {
  const authorization = admin.makeApiClient(AuthorizationV1Api);
  const user = `system:serviceaccount:${namespace}:${name}`;
  const groups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'];
  for (const rule of rules.filter((each) => each.resources?.length)) {
    // `monitors/status` in a rule is resource `monitors`, subresource `status` in a review.
    const [resource, subresource] = (rule.resources?.[0] ?? '').split('/');
    const resourceAttributes = {
      ...(clusterWide ? {} : { namespace }),
      verb: rule.verbs[0] ?? '',
      group: rule.apiGroups?.[0] ?? '',
      resource: resource ?? '',
      ...(subresource ? { subresource } : {}),
    };
    await eventually(`RBAC granting ${user} ${JSON.stringify(resourceAttributes)}`, async () => {
      const review = await authorization.createSubjectAccessReview({
        body: { spec: { user, groups, resourceAttributes } },
      });
      return review.status?.allowed === true;
    });
  }
}

/**
 * Waits for the Job controller to create a Pod for the Job, then does what a kubelet would when its container
 * ends: marks the Pod Succeeded (exit code 0) or Failed (exit code 1). One Pending Pod per call. Returns the Pod as
 * it was before, so a test can run the would-be container's command itself.
 */
export async function finishJobPod(
  namespace: string,
  jobName: string,
  phase: 'Succeeded' | 'Failed' = 'Succeeded',
): Promise<V1Pod> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const pod = await eventually(`a Pod for Job ${namespace}/${jobName}`, async () => {
    const pods = await core.listNamespacedPod({ namespace, labelSelector: `job-name=${jobName}` });
    return pods.items.find((each) => each.status?.phase === 'Pending');
  });
  // metav1.Time is RFC 3339 in whole seconds.
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const exitCode = phase === 'Succeeded' ? 0 : 1;
  const containerStatuses = (pod.spec?.containers ?? []).map((container) => ({
    name: container.name,
    image: container.image ?? '',
    imageID: '',
    ready: false,
    restartCount: 0,
    state: {
      terminated: {
        exitCode,
        reason: phase === 'Succeeded' ? 'Completed' : 'Error',
        startedAt: now,
        finishedAt: now,
      },
    },
  }));
  const name = pod.metadata?.name ?? '';
  await core.patchNamespacedPodStatus(
    { namespace, name, body: { status: { phase, containerStatuses } } },
    mergePatch,
  );
  return pod;
}
