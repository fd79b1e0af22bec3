// What the operator's informer keeps of a Monitor (issue 39, the operator's memory at fleet size).
import { describe, expect, it } from 'vitest';
import { trimForCache } from '../../operator/src/trim-for-cache.js';

describe('a Monitor as the informer’s cache keeps it', () => {
  it('has no managed fields and no last-applied copy, and keeps every other annotation and field', () => {
    const monitor = {
      metadata: {
        name: 'checkout',
        namespace: 'shop',
        resourceVersion: '42',
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{"version":"1.0"}}',
          'meerkat.dev/run-now': 'first',
        },
      },
      spec: { version: '1.0' },
      status: { health: 'healthy' },
    };
    expect(trimForCache(monitor)).toEqual({
      metadata: {
        name: 'checkout',
        namespace: 'shop',
        resourceVersion: '42',
        annotations: { 'meerkat.dev/run-now': 'first' },
      },
      spec: { version: '1.0' },
      status: { health: 'healthy' },
    });
  });

  it('leaves an object without metadata (a watch’s error status) as it is', () => {
    expect(trimForCache({ code: 410 })).toEqual({ code: 410 });
  });
});
