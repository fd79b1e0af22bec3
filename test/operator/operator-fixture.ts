// What the operator's kube tests share: the hooks that give a file its hub, namespace and operator ServiceAccount,
// operators started with the common options, the committed ClusterRole under a per-file name, typed access to
// Monitors as admin, samples renamed per test, a hub client that records its writes, and waits.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1ClusterRole } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { parse } from 'yaml';
import { createHubClient } from '../../hub/src/client/hub-client.js';
import { consoleMonitorPath, consoleRunPath } from '../../hub/src/contract/console-paths.js';
import { parseProjectPolicy } from '../../operator/src/project-tenancy.js';
import {
  MONITOR_GROUP,
  MONITOR_PLURAL,
  MONITOR_VERSION,
  type MonitorResource,
} from '../../operator/src/monitor-resource-status.js';
import {
  startOperator,
  type OperatorOptions,
  type RunningOperator,
} from '../../operator/src/start-operator.js';
import { startTestHub, type TestHub, type TestHubOptions } from '../harness/hub.js';
import {
  adminKubeConfig,
  createTestNamespace,
  eventually,
  kubeConfigForServiceAccount,
  mergePatch,
  type TestNamespace,
} from '../kube/test-cluster.js';
import { installMonitorCrd, readMonitorSamples, type MonitorSample } from './monitor-crd-install.js';

interface Stoppable {
  stop(): Promise<void>;
}

export interface OperatorTests {
  readonly hub: TestHub;
  readonly namespace: TestNamespace;
  /** The operator's ServiceAccount in `namespace` (see operatorKubeConfig). */
  readonly kubeConfig: KubeConfig;
  /**
   * An operator as that ServiceAccount, talking to `hub` with the operator's key, logging at OPERATOR_TEST_LOG
   * (silent by default), resyncing every minute, watching `namespace` only; `extra` adds or overrides options. Stopped after the file's tests.
   */
  startTestOperator(extra?: Partial<OperatorOptions>): RunningOperator;
  /** Stops these, in order, after the file's tests (before the namespace and the hub go). */
  stopAfterAll(...each: Stoppable[]): void;
}

/**
 * Registers the file's hooks. Before its tests: installs the Monitor CRD, starts a hub (with `hubOptions`), creates a namespace named
 * after `namespacePrefix` and the operator's ServiceAccount in it. After them: stops every operator started and
 * everything handed to stopAfterAll, deletes the namespace and closes the hub.
 */
export function setUpOperatorTests(namespacePrefix: string, hubOptions: TestHubOptions = {}): OperatorTests {
  let hub: TestHub | undefined;
  let namespace: TestNamespace | undefined;
  let kubeConfig: KubeConfig | undefined;
  const toStop: Stoppable[] = [];

  beforeAll(async () => {
    await installMonitorCrd();
    hub = await startTestHub(hubOptions);
    namespace = await createTestNamespace(namespacePrefix);
    kubeConfig = await operatorKubeConfig(namespace.name);
  });

  afterAll(async () => {
    for (const each of toStop) await each.stop();
    await namespace?.delete();
    await hub?.close();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`the operator tests' ${what} is only there once beforeAll has run`);
    return value;
  };

  const tests: OperatorTests = {
    get hub() {
      return ready(hub, 'hub');
    },
    get namespace() {
      return ready(namespace, 'namespace');
    },
    get kubeConfig() {
      return ready(kubeConfig, 'kube config');
    },
    startTestOperator(extra = {}) {
      const running = startOperator({
        kubeConfig: tests.kubeConfig,
        hub: createHubClient(tests.hub.url, tests.hub.keys.acmeEditor),
        log: pino({ level: process.env.OPERATOR_TEST_LOG ?? 'silent' }),
        resyncMs: 60_000,
        // Test defaults of the required ports: any project, the console's pages on the test hub.
        projects: parseProjectPolicy('*=*'),
        runUrl: (runId) => new URL(consoleRunPath(runId), tests.hub.url).toString(),
        monitorUrl: (id) => new URL(consoleMonitorPath(id), tests.hub.url).toString(),
        // Test files share the cluster and the CRD: each file's operators keep to its own namespace.
        watchNamespace: tests.namespace.name,
        ...extra,
      });
      toStop.push(running);
      return running;
    },
    stopAfterAll(...each) {
      toStop.push(...each);
    },
  };
  return tests;
}

/** A ServiceAccount in namespace bound only to config/rbac/operator-clusterrole.yaml (renamed for this file). */
function operatorKubeConfig(namespace: string): Promise<KubeConfig> {
  const role = parse(
    readFileSync(new URL('../../config/rbac/operator-clusterrole.yaml', import.meta.url), 'utf8'),
  ) as V1ClusterRole;
  const clusterRole = { ...role, metadata: { name: `meerkat-operator-${randomBytes(3).toString('hex')}` } };
  return kubeConfigForServiceAccount(namespace, 'meerkat-operator', [], { clusterRoles: [clusterRole] });
}

export function monitorsIn(namespace: string) {
  const api = adminKubeConfig().makeApiClient(CustomObjectsApi);
  const target = { group: MONITOR_GROUP, version: MONITOR_VERSION, plural: MONITOR_PLURAL, namespace };
  return {
    create: async (body: MonitorSample & { metadata: { finalizers?: string[] } }) =>
      (await api.createNamespacedCustomObject({ ...target, body })) as MonitorResource,
    get: async (name: string) =>
      (await api.getNamespacedCustomObject({ ...target, name })) as MonitorResource,
    patchSpec: (name: string, spec: object) =>
      api.patchNamespacedCustomObject({ ...target, name, body: { spec } }, mergePatch),
    delete: (name: string) => api.deleteNamespacedCustomObject({ ...target, name }),
    gone: (name: string) =>
      api.getNamespacedCustomObject({ ...target, name }).then(
        () => false,
        (error: { code?: number }) => error.code === 404,
      ),
  };
}

/**
 * The samples' notifications name chat, email and webhook integrations the test hub does not have (the hub
 * refuses them); the sync itself is what the operator's tests are about.
 */
export function withoutNotifications(sample: { file: string; resource: MonitorSample }) {
  const { notifications: _notifications, ...spec } = sample.resource.spec ?? {};
  return { ...sample, resource: { ...sample.resource, spec } };
}

/** A copy of the first sample, without notifications, as a new resource; its hub name comes from metadata.name. */
export function sampleNamed(namespace: string, name: string): MonitorSample {
  const { resource } = withoutNotifications(readMonitorSamples(namespace)[0]!);
  const { name: _name, ...spec } = resource.spec ?? {};
  return { ...resource, metadata: { name }, spec };
}

export const condition = (resource: MonitorResource, type: 'Synced' | 'Healthy') =>
  resource.status?.conditions?.find((each) => each.type === type);

/** Waits for Synced=status; with `generation`, for a Synced condition observed at that generation. */
export function untilSynced(
  namespace: string,
  name: string,
  status: 'True' | 'False' = 'True',
  generation?: number,
) {
  const what = `${name} Synced=${status}${generation === undefined ? '' : ` for generation ${generation}`}`;
  return eventually(what, async () => {
    const resource = await monitorsIn(namespace).get(name);
    const synced = condition(resource, 'Synced');
    return synced?.status === status && (generation === undefined || synced.observedGeneration === generation)
      ? resource
      : undefined;
  });
}

/** The real hub client for the operator's key, recording the ids it wrote, so a test sees which replica wrote. */
export function recordingHub(hub: TestHub) {
  const client = createHubClient(hub.url, hub.keys.acmeEditor);
  const writes: string[] = [];
  return {
    writes,
    client: {
      ...client,
      putMonitor: (id: string, definition: Parameters<typeof client.putMonitor>[1]) => {
        writes.push(id);
        return client.putMonitor(id, definition);
      },
      putMonitors: (items: Parameters<typeof client.putMonitors>[0]) => {
        writes.push(...items.map((item) => item.id));
        return client.putMonitors(items);
      },
      deleteMonitor: (id: string) => {
        writes.push(id);
        return client.deleteMonitor(id);
      },
    },
  };
}

/** The monitor as the hub shows it to a viewer: the status, and `data` of the body (undefined when none). */
export async function hubMonitor(
  hub: TestHub,
  id: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await hub.request('GET', `/monitor/${id}`, { as: 'acmeViewer' });
  return {
    status: response.status,
    body: ((await response.json().catch(() => ({}))) as { data: Record<string, unknown> }).data,
  };
}

export async function hubMonitorStatus(hub: TestHub, id: string): Promise<number> {
  return (await hubMonitor(hub, id)).status;
}

export async function eventsFor(namespace: string, name: string) {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const events = await core.listNamespacedEvent({ namespace });
  return events.items.filter((event) => event.involvedObject.name === name);
}
