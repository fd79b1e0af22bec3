// The generated CRD on a real kube-apiserver: it must be structural (accepted, Established, no
// NonStructuralSchema condition), and every sample must be accepted without a field pruned away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, type TestNamespace } from '../kube/test-cluster.js';
import { installMonitorCrd, readGeneratedCrd, readMonitorSamples } from './monitor-crd-install.js';
import { monitorsIn } from './operator-fixture.js';

let namespace: TestNamespace;

beforeAll(async () => {
  namespace = await createTestNamespace('monitor-crd');
});
afterAll(async () => {
  await namespace.delete();
});

describe('the generated Monitor CRD', () => {
  it('is accepted as a structural schema and becomes Established', async () => {
    const crd = await installMonitorCrd();
    const types = crd.status?.conditions?.map((condition) => condition.type);
    expect(types).toContain('Established');
    expect(types).not.toContain('NonStructuralSchema');
    expect(crd.spec.names.shortNames).toEqual(['mkm']);
  });

  it('shows HEALTH, SUCCESS, P95, LAST RUN, SYNCED and AGE columns', () => {
    const columns = readGeneratedCrd().spec.versions[0]?.additionalPrinterColumns?.map((c) =>
      c.name.toUpperCase(),
    );
    expect(columns).toEqual(['HEALTH', 'SUCCESS', 'P95', 'LAST RUN', 'SYNCED', 'AGE']);
  });

  it.each(readMonitorSamples('placeholder').map(({ file }) => file))(
    'accepts the sample %s with every field kept',
    async (file) => {
      await installMonitorCrd();
      const sample = readMonitorSamples(namespace.name).find((each) => each.file === file);
      if (!sample) throw new Error(`sample ${file} vanished`);
      const created = await monitorsIn(namespace.name).create(sample.resource);
      expect(created.spec).toEqual(sample.resource.spec);
    },
  );

  it('refuses a spec whose node type is not one of the known ones', async () => {
    await installMonitorCrd();
    const [sample] = readMonitorSamples(namespace.name);
    if (!sample) throw new Error('no samples');
    const spec = structuredClone(sample.resource.spec) as { nodes: Array<{ type: string }> };
    spec.nodes[0]!.type = 'FTP_REQUEST';
    const refusal = await monitorsIn(namespace.name)
      .create({ ...sample.resource, metadata: { name: 'bad-node-type' }, spec })
      .then(
        () => undefined,
        (error: unknown) => error as { code?: number; body?: string },
      );
    expect(refusal?.code).toBe(422);
    expect(String(refusal?.body)).toContain('FTP_REQUEST');
  });
});
