// What a reconcile costs the API server: reconcile reads Monitors from the informer's cache (ADR 0043), so passes
// make no GET of a Monitor. Proved with an operator whose ServiceAccount may not GET Monitors at all (list, watch
// and patch only): it syncs and refreshes without one failed pass; and its client counts its own GETs of a Monitor
// (the API server's apiserver_request_total cannot tell: v1.20 labels a GET of a custom resource LIST).
import { HttpMethod, KubeConfig, type RequestContext } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { eventually, kubeConfigForServiceAccount } from '../kube/test-cluster.js';
import { monitorsIn, sampleNamed, setUpOperatorTests, untilSynced } from './operator-fixture.js';

const setup = setUpOperatorTests('operator-reads');

/**
 * A client configuration that counts the operator's own requests made through it: GETs of one Monitor, GETs of
 * a namespace, and writes (anything but GET).
 */
class CountingKubeConfig extends KubeConfig {
  monitorGets = 0;
  namespaceGets = 0;
  writes = 0;

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    const path = new URL(context.getUrl()).pathname;
    const method = context.getHttpMethod();
    if (method === HttpMethod.GET && /\/monitors\/[^/]+$/.test(path)) this.monitorGets += 1;
    if (method === HttpMethod.GET && /^\/api\/v1\/namespaces\/[^/]+$/.test(path)) this.namespaceGets += 1;
    if (method !== HttpMethod.GET) this.writes += 1;
    return super.applySecurityAuthentication(context);
  }
}

const counter = async (registry: Registry, name: string) =>
  (await registry.getSingleMetric(name)?.get())?.values.reduce((sum, each) => sum + each.value, 0) ?? 0;

describe('operator API reads', () => {
  it('reconciles without a GET of the Monitor: the informer’s cache answers', async () => {
    const monitors = monitorsIn(setup.namespace.name);
    for (const name of ['reads-a', 'reads-b', 'reads-c'])
      await monitors.create(sampleNamed(setup.namespace.name, name));
    const withoutGet = await kubeConfigForServiceAccount(setup.namespace.name, 'operator-without-get', [
      { apiGroups: ['meerkat.dev'], resources: ['monitors'], verbs: ['list', 'watch', 'update', 'patch'] },
      {
        apiGroups: ['meerkat.dev'],
        resources: ['monitors/status', 'monitors/finalizers'],
        verbs: ['update', 'patch'],
      },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
    const kubeConfig = new CountingKubeConfig();
    kubeConfig.loadFromString(withoutGet.exportConfig());
    const registry = new Registry();
    // Passes come from the planned resync (every cached Monitor reconciled again) and health sweeps every 100 ms.
    setup.startTestOperator({ registry, refreshMs: 100, resyncMs: 300, kubeConfig });
    for (const name of ['reads-a', 'reads-b', 'reads-c']) {
      await untilSynced(setup.namespace.name, name);
      await eventually(`${name} with its health`, async () => (await monitors.get(name)).status?.health);
    }

    const { monitorGets: getsBefore, namespaceGets: namespacesBefore, writes: writesBefore } = kubeConfig;
    const passesBefore = await counter(registry, 'meerkat_operator_reconcile_total');
    await eventually(
      'thirty more reconcile passes',
      async () => (await counter(registry, 'meerkat_operator_reconcile_total')) >= passesBefore + 30,
    );
    const passes = (await counter(registry, 'meerkat_operator_reconcile_total')) - passesBefore;
    const gets = kubeConfig.monitorGets - getsBefore;
    const namespaceGets = kubeConfig.namespaceGets - namespacesBefore;
    const writes = kubeConfig.writes - writesBefore;
    console.log(
      `[operator reads] ${passes} reconcile passes, ${gets} GETs of a Monitor, ` +
        `${namespaceGets} GETs of a namespace, ${writes} writes by the operator`,
    );
    expect(await counter(registry, 'meerkat_operator_reconcile_errors_total')).toBe(0);
    expect(gets).toBe(0);
    expect(namespaceGets).toBe(0);
    // Nothing changed: the passes write no status, no finalizer, no Event.
    expect(writes).toBe(0);
  });
});
