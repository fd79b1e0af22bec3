// A seeded random walk over what deletion by sweep (ADR 0065) must survive: Monitors created and deleted (some
// carrying an older operator's finalizer, their hub monitors unlabelled), the informer's relists (some from a stale
// list, which misses deletions and reports live Monitors gone), operator restarts (a fresh index and departed record,
// a watch resumed from a remembered version or a new listing), and sweeps. The operator's own modules run as
// startOperator wires them (monitor-index.ts, departed-monitors.ts, reconcileMonitor, hub-copies.ts, the sweep of
// managed-monitors.ts) against a real hub; what stands in for the informer is a list-and-watch over an in-memory
// API server, because a real API server cannot be made to serve a stale list or to replay a watch on demand.
//
// Asserted after every step: no hub monitor of a live Monitor, of another cluster or made by hand is ever deleted.
// After each sweep whose cache is complete (listed and caught up with the API server): no hub monitor of this
// cluster is left whose Monitor is gone. At the end: the hub holds exactly one labelled monitor per live Monitor and
// no Monitor carries the old finalizer. SWEEP_SEED replays a run (its seed is in the test's name); SWEEP_STEPS
// sets its length.
import { randomInt } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createHubClient, type HubClient } from '../../hub/src/client/hub-client.js';
import type { MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import { monitorResourceToDefinition } from '../../hub/src/contract/monitor-resource.js';
import { createDepartedMonitors } from '../../operator/src/departed-monitors.js';
import { createHubAvailability } from '../../operator/src/hub-availability.js';
import { createHubCopies } from '../../operator/src/hub-copies.js';
import { createOrphanSweep, managedLabels } from '../../operator/src/managed-monitors.js';
import { createMonitorIndex } from '../../operator/src/monitor-index.js';
import { CLEANUP_FINALIZER, type MonitorResource } from '../../operator/src/monitor-resource-status.js';
import { parseProjectPolicy } from '../../operator/src/project-tenancy.js';
import {
  reconcileMonitor,
  type MonitorKey,
  type ReconcileDependencies,
} from '../../operator/src/reconcile-monitor.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

const seed = Number(process.env.SWEEP_SEED ?? randomInt(2 ** 31));
const steps = Number(process.env.SWEEP_STEPS ?? 120);
const CLUSTER = 'ca-0123456789abcdef';
const OTHER_CLUSTER = 'ca-fedcba9876543210';
const NAMESPACES = ['shop', 'billing'];
const NAMES = ['checkout', 'cart', 'search', 'login', 'pay'];

/** mulberry32: small, and the same sequence for the same seed everywhere. */
function random(from: number) {
  let state = from >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    below: (n: number) => Math.floor(next() * n),
    pick: <T>(items: T[]) => items[Math.floor(next() * items.length)]!,
  };
}

const idOf = (key: MonitorKey) => `${key.namespace}/${key.name}`;
const keyOf = (resource: MonitorResource): MonitorKey => ({
  namespace: resource.metadata.namespace,
  name: resource.metadata.name,
});
const definitionOf = (resource: MonitorResource, labels: Record<string, string>) =>
  ({ ...monitorResourceToDefinition(resource), labels }) as unknown as MonitorDefinition;

/** The API server: Monitors by key, and every change as a watch event at its resourceVersion. */
function inMemoryApiServer() {
  let uids = 0;
  const events: Array<{ rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; resource: MonitorResource }> = [];
  const objects = new Map<string, MonitorResource>();
  const record = (type: 'ADDED' | 'MODIFIED' | 'DELETED', resource: MonitorResource) => {
    resource.metadata.resourceVersion = String(events.length + 1);
    events.push({ rv: events.length + 1, type, resource: structuredClone(resource) });
    if (type === 'DELETED') objects.delete(idOf(keyOf(resource)));
    else objects.set(idOf(keyOf(resource)), resource);
  };
  return {
    events,
    objects,
    rv: () => events.length,
    /** A Monitor with a fresh uid, not stored (one of another cluster's, or the source of a hand-made monitor). */
    make(key: MonitorKey, finalizers: string[] = []): MonitorResource {
      uids += 1;
      const uid = `00000000-0000-4000-8000-${String(uids).padStart(12, '0')}`;
      const resource: MonitorResource = {
        apiVersion: 'meerkat.dev/v1alpha1',
        kind: 'Monitor',
        metadata: { ...key, uid, generation: 1, finalizers },
        spec: {
          version: '1.0',
          frequency: { every: 60, unit: 'MINUTE' },
          nodes: [{ id: 'ping', type: 'WAIT', duration_ms: 10 }],
          edges: [],
        },
      };
      return resource;
    },
    create(key: MonitorKey, finalizers: string[] = []): MonitorResource {
      const resource = this.make(key, finalizers);
      record('ADDED', resource);
      return resource;
    },
    /** A delete: gone at once, or Terminating while a finalizer holds it. */
    delete(key: MonitorKey) {
      const resource = objects.get(idOf(key));
      if (!resource || resource.metadata.deletionTimestamp) return;
      if ((resource.metadata.finalizers ?? []).length === 0) return record('DELETED', resource);
      resource.metadata.deletionTimestamp = new Date(0).toISOString();
      record('MODIFIED', resource);
    },
    setFinalizers(key: MonitorKey, resourceVersion: string | undefined, finalizers: string[]) {
      const resource = objects.get(idOf(key));
      if (!resource) throw Object.assign(new Error('not found'), { code: 404 });
      if (resource.metadata.resourceVersion !== resourceVersion) throw new Error('409 Conflict');
      resource.metadata.finalizers = finalizers;
      record(
        resource.metadata.deletionTimestamp && finalizers.length === 0 ? 'DELETED' : 'MODIFIED',
        resource,
      );
      return structuredClone(resource);
    },
    /** What a list at resourceVersion `rv` answered. */
    at(rv: number): Map<string, MonitorResource> {
      const state = new Map<string, MonitorResource>();
      for (const event of events.slice(0, rv)) {
        if (event.type === 'DELETED') state.delete(idOf(keyOf(event.resource)));
        else state.set(idOf(keyOf(event.resource)), structuredClone(event.resource));
      }
      return state;
    },
  };
}

/** The real hub, started by the walk itself. */
let hub: TestHub | undefined;
afterAll(async () => hub?.close());

describe('deletion by sweep, at random', () => {
  it(
    `keeps a hub monitor iff its Monitor lives (SWEEP_SEED=${seed}, ${steps} steps)`,
    { timeout: 120_000 },
    async () => {
      hub = await startTestHub();
      const client: HubClient = createHubClient(hub.url, hub.keys.acmeEditor);
      const rng = random(seed);
      const api = inMemoryApiServer();
      const log = pino({ level: process.env.OPERATOR_TEST_LOG ?? 'silent' });
      const violations: string[] = [];
      const trail: string[] = [];
      /** Hub monitors the sweep must never touch: another cluster's, and one made with `meerkat apply`. */
      const foreign = new Set<string>();
      const live = () =>
        new Set(
          [...api.objects.values()].filter((r) => !r.metadata.deletionTimestamp).map((r) => r.metadata.uid),
        );

      // The hub as the operator's client sees it, every deletion checked against the API server at that moment.
      const hubSide = {
        ...client,

        async deleteMonitor(id: string) {
          if (foreign.has(id)) violations.push(`step ${trail.length}: deleted ${id}, not this cluster’s`);
          if (live().has(id)) violations.push(`step ${trail.length}: deleted ${id}, whose Monitor lives`);
          await client.deleteMonitor(id);
        },
      };

      for (const [index, namespace] of NAMESPACES.entries()) {
        const other = api.make({ namespace, name: `west-${index}` });
        await client.putMonitor(
          other.metadata.uid,
          definitionOf(other, managedLabels(OTHER_CLUSTER, namespace)),
        );
        foreign.add(other.metadata.uid);
      }
      const byHand = api.make({ namespace: 'shop', name: 'by-hand' });
      await client.putMonitor(byHand.metadata.uid, definitionOf(byHand, { team: 'shop' }));
      foreign.add(byHand.metadata.uid);
      // Synced by an older operator: its finalizer on the Monitor, no labels on the hub monitor.
      for (const name of NAMES.slice(0, 2)) {
        const legacy = api.create({ namespace: 'shop', name }, [CLEANUP_FINALIZER]);
        await client.putMonitor(legacy.metadata.uid, definitionOf(legacy, {}));
      }

      /** One operator's life: what startController builds, fed by a list-and-watch over the API server. */
      function startIncarnation(resumeFrom: number | undefined) {
        const index = createMonitorIndex();
        const departed = createDepartedMonitors();
        const cache = new Map<string, MonitorResource>();
        const queue = new Set<string>();
        const state = { listed: false, seen: resumeFrom ?? 0, watching: resumeFrom !== undefined };
        const onChange = (
          key: MonitorKey,
          change: 'ADDED' | 'MODIFIED' | 'DELETED' | 'LISTED',
          resource: MonitorResource,
        ) => {
          if (change === 'DELETED') departed.record(key, resource.metadata.uid);
          index.observe(change, resource);
          queue.add(idOf(key));
        };
        const sweep = createOrphanSweep({
          clusterName: CLUSTER,
          watchNamespace: undefined,
          cacheListed: () => state.listed,
          isCached: (uid) => index.keyOfUid(uid) !== undefined,
          liveUids: () => Promise.resolve(new Set([...api.objects.values()].map((r) => r.metadata.uid))),
          deleteMonitor: (id) => hubSide.deleteMonitor(id),
          log,
        });
        const hubCopies = createHubCopies({
          listMonitors: () => client.listMonitors({}),
          log,
          onListed: (monitors) => void sweep.hubListed(monitors),
        });
        hubCopies.refresh();
        const availability = createHubAvailability({
          probe: () => client.getMonitor('probe'),
          graceMs: 300_000,
          log,
          now: () => new Date(),
        });
        const deps: ReconcileDependencies = {
          hub: hubSide,
          resources: {
            get: (key) => structuredClone(cache.get(idOf(key))),
            getLatest: (key) => Promise.resolve(structuredClone(api.objects.get(idOf(key)))),
            setFinalizers: (resource, finalizers) =>
              Promise.resolve(
                api.setFinalizers(keyOf(resource), resource.metadata.resourceVersion, finalizers),
              ),
            // Kept on the API server's object and the cached one alike, as the echo of the write would.
            writeStatus: (resource, status) => {
              for (const copy of [api.objects.get(idOf(keyOf(resource))), cache.get(idOf(keyOf(resource)))])
                if (copy?.metadata.uid === resource.metadata.uid) copy.status = structuredClone(status);
              return Promise.resolve();
            },
          },
          events: { record: () => Promise.resolve() },
          now: () => new Date(),
          log,
          availability,
          resourceOfMonitorId: index.keyOfUid,
          fleetHealth: { rowOf: () => undefined },
          hubCopies,
          projects: parseProjectPolicy('*=*'),
          runUrl: (id) => `https://meerkat.example/ui/runs/${id}`,
          monitorUrl: (id) => `https://meerkat.example/ui/monitors/${id}`,
          refreshMs: 60_000,
          clusterName: CLUSTER,
          departed,
        };
        return {
          state,
          cache,
          /** The informer lists (at the API server's current version, or from a stale one) and watches from there. */
          relist(rv: number) {
            const listed = api.at(rv);
            for (const [id, resource] of cache)
              if (!listed.has(id)) onChange(keyOf(resource), 'DELETED', resource);
            cache.clear();
            for (const [id, resource] of listed) {
              cache.set(id, resource);
              onChange(keyOf(resource), 'LISTED', resource);
            }
            Object.assign(state, { seen: rv, watching: true });
            hubCopies.refresh();
            if (!state.listed) {
              state.listed = true;
              return sweep.cacheListed();
            }
            return sweep.settled();
          },
          /** The watch delivers its next event. */
          watchOne() {
            const event = api.events[state.seen];
            if (!state.watching || event === undefined) return;
            state.seen += 1;
            const resource = structuredClone(event.resource);
            if (event.type === 'DELETED') cache.delete(idOf(keyOf(resource)));
            else cache.set(idOf(keyOf(resource)), resource);
            onChange(keyOf(resource), event.type, resource);
          },
          /** One pass per queued key; a pass that fails is queued again for the next drain (the queue's retry). */
          async drain() {
            const failed: string[] = [];
            while (queue.size > 0) {
              const id = queue.values().next().value!;
              queue.delete(id);
              const [namespace, name] = id.split('/') as [string, string];
              await reconcileMonitor({ namespace, name }, deps).catch((error: unknown) => {
                trail.push(`  pass over ${id} failed: ${String(error)}`);
                failed.push(id);
              });
            }
            for (const id of failed) queue.add(id);
          },
          /** The planned resync: every cached Monitor again. */
          resync: () => cache.forEach((resource) => onChange(keyOf(resource), 'LISTED', resource)),
          async sweepNow() {
            await sweep.hubListed(await client.listMonitors({}));
          },
          caughtUp: () => state.listed && state.watching && state.seen === api.rv(),
          async stop() {
            await hubCopies.stop();
            await sweep.settled();
          },
        };
      }

      /** After a sweep whose cache was complete: none of this cluster's hub monitors is left without its Monitor. */
      async function checkNoneLeft(when: string) {
        const alive = live();
        const terminating = new Set([...api.objects.values()].map((r) => r.metadata.uid));
        for (const monitor of await client.listMonitors({}))
          if (
            monitor.labels?.['meerkat.dev/cluster'] === CLUSTER &&
            !terminating.has(monitor.id) &&
            !alive.has(monitor.id)
          )
            violations.push(`${when}: ${monitor.id} (${monitor.name}) kept, its Monitor gone`);
      }

      let operator = startIncarnation(undefined);
      for (let step = 0; step < steps && violations.length === 0; step += 1) {
        const roll = rng.next();
        const key = { namespace: rng.pick(NAMESPACES), name: rng.pick(NAMES) };
        if (roll < 0.25) {
          trail.push(`create ${idOf(key)}`);
          if (!api.objects.has(idOf(key))) api.create(key);
        } else if (roll < 0.45) {
          trail.push(`delete ${idOf(key)}`);
          api.delete(key);
        } else if (roll < 0.65) {
          const count = 1 + rng.below(4);
          trail.push(`watch delivers ${count}`);
          for (let each = 0; each < count; each += 1) operator.watchOne();
        } else if (roll < 0.75) {
          const stale = rng.next() < 0.5;
          const rv = stale ? rng.below(api.rv() + 1) : api.rv();
          trail.push(`relist at ${rv} of ${api.rv()}${stale ? ' (stale)' : ''}`);
          await operator.relist(rv);
        } else if (roll < 0.82) {
          const resume = rng.next() < 0.5 ? operator.state.seen : undefined;
          trail.push(`restart${resume === undefined ? '' : ` resuming the watch at ${resume}`}`);
          await operator.stop();
          operator = startIncarnation(resume);
        } else if (roll < 0.9) {
          operator.resync();
          trail.push('resync');
        } else {
          const complete = operator.caughtUp();
          trail.push(`sweep${complete ? ' (cache complete)' : ''}`);
          await operator.drain();
          await operator.sweepNow();
          if (complete && operator.caughtUp()) await checkNoneLeft(`step ${step}`);
        }
        await operator.drain();
      }

      // The end: a complete listing, the watch caught up, a sweep, and a resync for what was refused meanwhile.
      await operator.relist(api.rv());
      for (let round = 0; round < 3; round += 1) {
        while (!operator.caughtUp()) operator.watchOne();
        await operator.drain();
        await operator.sweepNow();
        operator.resync();
        await operator.drain();
      }
      await operator.stop();
      await checkNoneLeft('at the end');

      const remaining = await client.listMonitors({});
      const ours = remaining.filter((monitor) => monitor.labels?.['meerkat.dev/cluster'] === CLUSTER);
      const context = `SWEEP_SEED=${seed}\n${trail.join('\n')}`;
      console.log(
        `[sweep] SWEEP_SEED=${seed}: ${trail.length} steps, ${live().size} Monitors left, ${ours.length} labelled hub monitors`,
      );
      expect(violations, context).toEqual([]);
      // Every hub monitor is a live Monitor's, labelled as this cluster's, or one the sweep must leave.
      expect(remaining.map((monitor) => monitor.id).sort(), context).toEqual([...live(), ...foreign].sort());
      expect(ours.map((monitor) => monitor.id).sort(), context).toEqual([...live()].sort());
      expect(
        [...api.objects.values()]
          .filter((r) => r.metadata.finalizers?.includes(CLEANUP_FINALIZER))
          .map(keyOf),
        context,
      ).toEqual([]);
    },
  );
});
