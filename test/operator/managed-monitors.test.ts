// Which hub monitors the resync's sweep deletes (ADR 0065): only this operator's (its cluster label, a namespace it
// watches) whose Monitor the informer's listed cache no longer holds.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Monitor } from '../../hub/src/contract/monitor-definition.js';
import {
  collectOrphans,
  managedLabels,
  orphansOf,
  type OrphanSweepOptions,
} from '../../operator/src/managed-monitors.js';

const monitor = (id: string, labels?: Record<string, string>) => ({ id, labels }) as unknown as Monitor;

function sweepOptions(extra: Partial<OrphanSweepOptions> = {}): OrphanSweepOptions & { deleted: string[] } {
  const deleted: string[] = [];
  return {
    clusterName: 'east',
    watchNamespace: undefined,
    cacheListed: () => true,
    isCached: (uid) => uid === 'cached',
    liveUids: () => Promise.resolve(new Set(['cached'])),
    deleteMonitor: (id) => Promise.resolve(void deleted.push(id)),
    log: pino({ level: 'silent' }),
    deleted,
    ...extra,
  };
}

describe('the sweep of hub monitors whose Monitor is gone', () => {
  const listed = [
    monitor('gone', managedLabels('east', 'shop')),
    monitor('cached', managedLabels('east', 'shop')),
    monitor('other-cluster', managedLabels('west', 'shop')),
    monitor('other-namespace', managedLabels('east', 'billing')),
    monitor('made-by-hand', { team: 'shop' }),
    monitor('unlabelled'),
  ];

  it('deletes only this cluster’s monitors whose uid the cache does not hold, in every namespace it watches', async () => {
    const options = sweepOptions();
    expect(await collectOrphans(listed, options)).toBe(2);
    expect(options.deleted).toEqual(['gone', 'other-namespace']);
  });

  it('watching one namespace, leaves the other namespaces’ monitors alone', () => {
    expect(orphansOf(listed, sweepOptions({ watchNamespace: 'shop' }))).toEqual(['gone']);
  });

  it('deletes nothing before the cache holds a complete listing', () => {
    expect(orphansOf(listed, sweepOptions({ cacheListed: () => false }))).toEqual([]);
  });

  it('leaves a monitor the cache lacks but the API server still holds (a cache behind it)', async () => {
    const options = sweepOptions({ liveUids: () => Promise.resolve(new Set(['cached', 'gone'])) });
    expect(await collectOrphans(listed, options)).toBe(1);
    expect(options.deleted).toEqual(['other-namespace']);
  });

  it('deletes nothing when the API server cannot be listed', async () => {
    const options = sweepOptions({ liveUids: () => Promise.reject(new Error('connection refused')) });
    expect(await collectOrphans(listed, options)).toBe(0);
    expect(options.deleted).toEqual([]);
  });

  it('a deletion that fails is left to the next sweep and does not stop the others', async () => {
    const options = sweepOptions({
      deleteMonitor: (id) => (id === 'gone' ? Promise.reject(new Error('timed out')) : Promise.resolve()),
    });
    expect(await collectOrphans(listed, options)).toBe(1);
  });
});
