// What a reconcile costs the API server: reconcile reads Monitors from the informer's cache (ADR 0043), so passes
// make no GET of a Monitor. Proved with an operator whose ServiceAccount may not GET Monitors at all (list, watch
// and patch only): it syncs and refreshes without one failed pass. The API server's own count of GETs
// (`apiserver_request_total`) is printed beside it; other test files running at once may add to that figure.
import { readFileSync } from 'node:fs';
import { get } from 'node:https';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { eventually, kubeCluster, kubeConfigForServiceAccount } from '../kube/test-cluster.js';
import { monitorsIn, sampleNamed, setUpOperatorTests, untilSynced } from './operator-fixture.js';

const setup = setUpOperatorTests('operator-reads');

/** The API server's count of requests with this verb on `monitors` (every namespace, every client). */
function apiServerRequests(verb: string): Promise<number> {
  const cluster = kubeCluster();
  return new Promise((resolve, reject) => {
    get(
      `${cluster.serverUrl}/metrics`,
      { ca: readFileSync(cluster.caCertPath), headers: { authorization: `Bearer ${cluster.adminToken}` } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let total = 0;
          for (const line of text.split('\n')) {
            if (!line.startsWith('apiserver_request_total{')) continue;
            if (line.includes(`verb="${verb}"`) && line.includes('resource="monitors"'))
              total += Number(line.slice(line.lastIndexOf(' ') + 1));
          }
          resolve(total);
        });
      },
    ).on('error', reject);
  });
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
    const registry = new Registry();
    setup.startTestOperator({ registry, refreshMs: 100, kubeConfig: withoutGet });
    for (const name of ['reads-a', 'reads-b', 'reads-c']) await untilSynced(setup.namespace.name, name);

    const getsBefore = await apiServerRequests('GET');
    const passesBefore = await counter(registry, 'meerkat_operator_reconcile_total');
    await eventually(
      'thirty more reconcile passes',
      async () => (await counter(registry, 'meerkat_operator_reconcile_total')) >= passesBefore + 30,
    );
    const passes = (await counter(registry, 'meerkat_operator_reconcile_total')) - passesBefore;
    const gets = (await apiServerRequests('GET')) - getsBefore;
    console.log(`[operator reads] ${passes} reconcile passes, ${gets} GETs of monitors at the API server`);
    expect(await counter(registry, 'meerkat_operator_reconcile_errors_total')).toBe(0);
  });
});
