// Smoke test of the real kube-apiserver through @kubernetes/client-node: what an operator relies on for its own
// custom resources (registration, CRUD, watch, merge patches, the status subresource, finalizers).
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  Watch,
  type KubeConfig,
  type V1CustomResourceDefinition,
  type V1ObjectMeta,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminKubeConfig,
  createTestNamespace,
  eventually,
  mergePatch,
  type TestNamespace,
} from './test-cluster.js';

// CRDs are cluster-wide: this group belongs to this file alone.
const group = 'smoke.meerkat.test';
const version = 'v1';
const plural = 'widgets';

const widgetDefinition: V1CustomResourceDefinition = {
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: version,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' } } },
              status: { type: 'object', properties: { observedSize: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

interface Widget {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec?: { size?: number };
  status?: { observedSize?: number };
}

/** Typed access to Widgets in one namespace (the generic custom-object API answers `any`). */
function widgetsIn(kubeConfig: KubeConfig, namespace: string) {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const target = { group, version, namespace, plural };
  return {
    path: `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
    create: async (name: string, spec: Widget['spec'], metadata: Partial<V1ObjectMeta> = {}) =>
      (await api.createNamespacedCustomObject({
        ...target,
        body: { apiVersion: `${group}/${version}`, kind: 'Widget', metadata: { ...metadata, name }, spec },
      })) as Widget,
    get: async (name: string) => (await api.getNamespacedCustomObject({ ...target, name })) as Widget,
    list: async () => (await api.listNamespacedCustomObject({ ...target })) as { items: Widget[] },
    patch: async (name: string, body: object) =>
      (await api.patchNamespacedCustomObject({ ...target, name, body }, mergePatch)) as Widget,
    patchStatus: async (name: string, body: object) =>
      (await api.patchNamespacedCustomObjectStatus({ ...target, name, body }, mergePatch)) as Widget,
    delete: (name: string) => api.deleteNamespacedCustomObject({ ...target, name }),
  };
}

const notFound = (error: unknown) => (error as { code?: number }).code === 404;

describe('custom resources on the real API server', () => {
  const kubeConfig = adminKubeConfig();
  let namespace: TestNamespace;
  let widgets: ReturnType<typeof widgetsIn>;

  beforeAll(async () => {
    namespace = await createTestNamespace('crd-smoke');
    widgets = widgetsIn(kubeConfig, namespace.name);
    const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
    await extensions.createCustomResourceDefinition({ body: widgetDefinition });
    await eventually('the Widget CRD becoming Established', async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: `${plural}.${group}` });
      return crd.status?.conditions?.some(({ type, status }) => type === 'Established' && status === 'True');
    });
  });
  afterAll(() => namespace?.delete());

  it('creates a widget, reads it back and lists it, pruning fields the schema does not know', async () => {
    const created = await widgets.create('alpha', { size: 3, colour: 'red' } as Widget['spec']);

    expect(created.metadata.uid).toBeTruthy();
    expect((await widgets.get('alpha')).spec).toEqual({ size: 3 });
    expect((await widgets.list()).items.map((widget) => widget.metadata.name)).toContain('alpha');
  });

  it('reports ADDED, MODIFIED and DELETED to a watch over the life of a widget', async () => {
    const seen: string[] = [];
    const watch = await new Watch(kubeConfig).watch(
      widgets.path,
      {},
      (phase, object: Widget) => {
        if (object.metadata.name === 'watched') seen.push(phase);
      },
      () => {},
    );
    try {
      await widgets.create('watched', { size: 1 });
      await widgets.patch('watched', { spec: { size: 2 } });
      await widgets.delete('watched');

      await eventually('the DELETED event', () => Promise.resolve(seen.includes('DELETED')));
      expect(seen).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    } finally {
      watch.abort();
    }
  });

  it('merges a spec patch and counts it as a new generation', async () => {
    const created = await widgets.create('patched', { size: 1 });

    const patched = await widgets.patch('patched', { spec: { size: 5 } });

    expect(patched.spec).toEqual({ size: 5 });
    expect(patched.metadata.generation).toBe((created.metadata.generation ?? 0) + 1);
  });

  it('writes status only through the status subresource, leaving the generation alone', async () => {
    const created = await widgets.create('reported', { size: 2 });

    const ignored = await widgets.patch('reported', { status: { observedSize: 9 } });
    const reported = await widgets.patchStatus('reported', { status: { observedSize: 2 } });

    expect(ignored.status).toBeUndefined();
    expect(reported.status).toEqual({ observedSize: 2 });
    expect(reported.spec).toEqual({ size: 2 });
    expect(reported.metadata.generation).toBe(created.metadata.generation);
  });

  it('keeps a deleted widget with a deletionTimestamp until its finalizer is removed', async () => {
    await widgets.create('held', { size: 1 }, { finalizers: [`${group}/hold`] });

    await widgets.delete('held');
    const terminating = await widgets.get('held');
    expect(terminating.metadata.deletionTimestamp).toBeTruthy();

    await widgets.patch('held', { metadata: { finalizers: null } });
    await eventually('the widget disappearing', () => widgets.get('held').then(() => false, notFound));
  });
});
