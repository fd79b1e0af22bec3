// The generated CRD on a real kube-apiserver: it must be structural (accepted, Established, no
// NonStructuralSchema condition), and every sample must be accepted without a field pruned away.
import type { V1JSONSchemaProps } from '@kubernetes/client-node';
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

  it('shows HEALTH, SUCCESS, LAST RUN, SYNCED and AGE (no P95: ADR 0063), and why with -o wide', () => {
    const columns = readGeneratedCrd().spec.versions[0]?.additionalPrinterColumns ?? [];
    const named = (wide: boolean) =>
      columns.filter((c) => (c.priority ?? 0) > 0 === wide).map((c) => c.name.toUpperCase());
    expect(named(false)).toEqual(['HEALTH', 'SUCCESS', 'LAST RUN', 'SYNCED', 'AGE']);
    expect(named(true)).toEqual(['REASON', 'MESSAGE', 'LAST RESULT', 'RUN ERROR']);
  });

  it('describes node fields per type and lists allowed values for kubectl explain', () => {
    const spec = readGeneratedCrd().spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec;
    const node = spec?.properties?.nodes?.items as V1JSONSchemaProps | undefined;
    expect(node?.properties?.method?.description).toMatch(
      /^method: required when type is `HTTP_REQUEST`; not allowed otherwise/,
    );
    expect(node?.properties?.duration_ms?.description).toMatch(/^duration_ms: required when type is `WAIT`/);
    expect(spec?.properties?.frequency?.properties?.unit?.description).toContain(
      'One of `MINUTE`, `HOUR`, `DAY`.',
    );
    expect(spec?.description).toContain('Example:');
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
