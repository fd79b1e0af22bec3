// reconcileMonitor with an in-memory hub and an in-memory Kubernetes API standing in for the real ones, so each
// failure (a lost status write, a hub that is down) can be staged exactly.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { HubRequestError } from '../../hub/src/cli/hub-client.js';
import type { MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import {
  CLEANUP_FINALIZER,
  type MonitorResource,
  type MonitorResourceStatus,
} from '../../operator/src/monitor-resource-status.js';
import {
  reconcileMonitor,
  type HubMonitors,
  type MonitorKey,
  type MonitorResources,
} from '../../operator/src/reconcile-monitor.js';

/** Every fake call yields a turn, as real HTTP calls do, so interleavings stay realistic. */
const apiCall = () => new Promise<void>((resolve) => setImmediate(resolve));

const key: MonitorKey = { namespace: 'shop', name: 'checkout' };
const uid = '6f1c1f52-8d7e-4c1a-9a51-0d6f3b1a2c3d';

function inMemoryHub() {
  const monitors = new Map<string, MonitorDefinition>();
  const hub = {
    monitors,
    down: false,
    rejectWith: undefined as HubRequestError | undefined,
    async putMonitor(id: string, definition: MonitorDefinition) {
      await apiCall();
      if (hub.down) throw new TypeError('fetch failed');
      if (hub.rejectWith) throw hub.rejectWith;
      monitors.set(id, definition);
    },
    async deleteMonitor(id: string) {
      await apiCall();
      if (hub.down) throw new TypeError('fetch failed');
      if (!monitors.delete(id)) throw new HubRequestError(404, 'not found');
    },
  } satisfies HubMonitors & Record<string, unknown>;
  return hub;
}

interface InMemoryResources extends MonitorResources {
  resource: MonitorResource | undefined;
  failStatusWrites: boolean;
}

function inMemoryResources(initial: MonitorResource): InMemoryResources {
  const store: InMemoryResources = {
    resource: structuredClone(initial),
    failStatusWrites: false,
    async get() {
      await apiCall();
      return store.resource && structuredClone(store.resource);
    },
    async setFinalizers(_resource: MonitorResource, finalizers: string[]) {
      await apiCall();
      if (!store.resource) throw Object.assign(new Error('gone'), { code: 404 });
      store.resource.metadata.finalizers = finalizers;
      // The API server removes an object once it is being deleted and holds no finalizers.
      if (store.resource.metadata.deletionTimestamp && finalizers.length === 0) store.resource = undefined;
      return structuredClone(store.resource ?? _resource);
    },
    async writeStatus(_resource: MonitorResource, status: MonitorResourceStatus) {
      await apiCall();
      if (store.failStatusWrites) throw new Error('the API server timed out');
      if (store.resource) store.resource.status = structuredClone(status);
    },
  };
  return store;
}

function monitorResource(generation = 1): MonitorResource {
  return {
    apiVersion: 'meerkat.dev/v1alpha1',
    kind: 'Monitor',
    metadata: { ...key, uid, generation, resourceVersion: '1' },
    spec: {
      version: '1.0',
      frequency: { every: 5, unit: 'MINUTE' },
      nodes: [{ id: 'ping', type: 'WAIT', duration_ms: 10 }],
      edges: [],
    },
  };
}

function setUp() {
  const hub = inMemoryHub();
  const resources = inMemoryResources(monitorResource());
  let clock = Date.parse('2025-01-01T00:00:00Z');
  const deps = {
    hub,
    resources,
    now: () => new Date((clock += 60_000)),
    log: pino({ level: 'silent' }),
  };
  const synced = () => resources.resource?.status?.conditions?.find((c) => c.type === 'Synced');
  return { hub, resources, deps, synced };
}

describe('reconcileMonitor', () => {
  it('reconciled twice, the resource has exactly one hub monitor, keyed by its uid', async () => {
    const { hub, resources, deps, synced } = setUp();
    await reconcileMonitor(key, deps);
    await reconcileMonitor(key, deps);
    expect([...hub.monitors.keys()]).toEqual([uid]);
    expect(hub.monitors.get(uid)).toMatchObject({ name: 'checkout', project: 'shop' });
    expect(resources.resource?.metadata.finalizers).toEqual([CLEANUP_FINALIZER]);
    expect(resources.resource?.status).toMatchObject({ monitorId: uid, observedGeneration: 1 });
    expect(synced()).toMatchObject({ status: 'True', reason: 'Synced', observedGeneration: 1 });
  });

  it('keeps lastTransitionTime while Synced stays True, and moves it when Synced turns False', async () => {
    const { hub, resources, deps, synced } = setUp();
    await reconcileMonitor(key, deps);
    const firstTransition = synced()?.lastTransitionTime;
    resources.resource!.metadata.generation = 2;
    await reconcileMonitor(key, deps);
    expect(synced()).toMatchObject({
      status: 'True',
      observedGeneration: 2,
      lastTransitionTime: firstTransition,
    });
    hub.rejectWith = new HubRequestError(400, 'invalid body', [
      { path: 'nodes[0].duration_ms', message: 'too big' },
    ]);
    await reconcileMonitor(key, deps);
    expect(synced()?.lastTransitionTime).not.toBe(firstTransition);
  });

  it('when the status write fails, the retry still finds one hub monitor', async () => {
    const { hub, resources, deps, synced } = setUp();
    resources.failStatusWrites = true;
    await expect(reconcileMonitor(key, deps)).rejects.toThrow('timed out');
    resources.failStatusWrites = false;
    await reconcileMonitor(key, deps);
    expect([...hub.monitors.keys()]).toEqual([uid]);
    expect(synced()?.status).toBe('True');
  });

  it('a spec the hub refuses shows Synced=False with the hub’s message and is not retried', async () => {
    const { hub, deps, synced } = setUp();
    hub.rejectWith = new HubRequestError(400, 'invalid body', [
      { path: 'frequency.every', message: 'the interval must be between 10 seconds and 30 days (got 1 s)' },
    ]);
    await expect(reconcileMonitor(key, deps)).resolves.toBeUndefined();
    expect(synced()).toMatchObject({ status: 'False', reason: 'HubRejectedSpec' });
    expect(synced()?.message).toContain(
      'frequency.every: the interval must be between 10 seconds and 30 days',
    );
    expect(hub.monitors.size).toBe(0);
  });

  it('with the hub down, Synced=False says so and the reconcile asks to be retried', async () => {
    const { hub, deps, synced } = setUp();
    hub.down = true;
    await expect(reconcileMonitor(key, deps)).rejects.toThrow('fetch failed');
    expect(synced()).toMatchObject({ status: 'False', reason: 'HubUnreachable' });
  });

  it('deleting with the hub down keeps the finalizer until a retry deletes the hub monitor', async () => {
    const { hub, resources, deps } = setUp();
    await reconcileMonitor(key, deps);
    resources.resource!.metadata.deletionTimestamp = '2025-01-01T01:00:00Z';
    hub.down = true;
    await expect(reconcileMonitor(key, deps)).rejects.toThrow('fetch failed');
    expect(resources.resource?.metadata.finalizers).toEqual([CLEANUP_FINALIZER]);
    expect(hub.monitors.has(uid)).toBe(true);
    hub.down = false;
    await reconcileMonitor(key, deps);
    expect(hub.monitors.size).toBe(0);
    expect(resources.resource).toBeUndefined();
  });

  it('deleting a resource whose hub monitor is already gone just removes the finalizer', async () => {
    const { hub, resources, deps } = setUp();
    await reconcileMonitor(key, deps);
    hub.monitors.clear();
    resources.resource!.metadata.deletionTimestamp = '2025-01-01T01:00:00Z';
    await reconcileMonitor(key, deps);
    expect(resources.resource).toBeUndefined();
  });

  it('a resource that no longer exists needs nothing', async () => {
    const { hub, resources, deps } = setUp();
    resources.resource = undefined;
    await reconcileMonitor(key, deps);
    expect(hub.monitors.size).toBe(0);
  });
});
