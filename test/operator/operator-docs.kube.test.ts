// The documentation's Monitor examples and uninstall order, tried on a real kube-apiserver with the operator and a
// real hub: every `kind: Monitor` document in docs/*.md applies with kubectl and is Synced, and the uninstall
// order of docs/install.md leaves nothing a CRD deletion would wait for.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { isMonitorResource } from '../../hub/src/contract/monitor-resource.js';
import type { RunningOperator } from '../../operator/src/start-operator.js';
import { kubeCluster } from '../kube/test-cluster.js';
import {
  hubMonitorStatus,
  monitorsIn,
  sampleNamed,
  setUpOperatorTests,
  untilSynced,
} from './operator-fixture.js';

const setup = setUpOperatorTests('operator-docs');
const docs = new URL('../../docs/', import.meta.url);
let operator: RunningOperator | undefined;
beforeAll(() => {
  operator = setup.startTestOperator();
});

/** Every YAML document of a docs page that is a Monitor: in ```yaml blocks and in `<<'YAML'` heredocs. */
function monitorExamples(): Array<{ page: string; resource: Record<string, unknown> }> {
  const examples: Array<{ page: string; resource: Record<string, unknown> }> = [];
  for (const page of readdirSync(docs).filter((file) => file.endsWith('.md'))) {
    const text = readFileSync(new URL(page, docs), 'utf8');
    const blocks = [
      ...text.matchAll(/```ya?ml\n([\s\S]*?)```/g),
      ...text.matchAll(/<<'?YAML'?\n([\s\S]*?)\nYAML\n/g),
    ].map((match) => match[1] ?? '');
    for (const block of blocks)
      for (const document of parseAllDocuments(block)) {
        const resource = document.toJS() as unknown;
        if (isMonitorResource(resource)) examples.push({ page, resource: { ...resource } });
      }
  }
  return examples;
}

async function kubectl(input: string | undefined, ...args: string[]): Promise<string> {
  const run = promisify(execFile)('kubectl', ['--kubeconfig', kubeCluster().kubeconfigPath, ...args]);
  if (input !== undefined) run.child.stdin?.end(input);
  return (await run).stdout;
}

describe('the documentation', () => {
  const examples = monitorExamples();

  it('has Monitor examples to try', () => {
    expect(examples.map(({ page }) => page)).toContain('install.md');
  });

  it.each(examples.map((example, index) => [`${example.page} #${index + 1}`, example] as const))(
    'the example %s applies with kubectl and is Synced',
    async (_name, { resource }) => {
      const metadata = resource.metadata as { name: string };
      // Into this test's namespace (the example's own, such as `shop`, is shared by nobody here).
      const body = { ...resource, metadata: { ...metadata, namespace: setup.namespace.name } };
      await kubectl(stringify(body), 'apply', '-f', '-');
      const synced = await untilSynced(setup.namespace.name, metadata.name);
      expect(await hubMonitorStatus(setup.hub, synced.metadata.uid)).toBe(200);
    },
  );

  it('the uninstall order of install.md deletes every hub monitor and leaves no Monitor behind', async () => {
    const namespace = setup.namespace.name;
    const monitors = monitorsIn(namespace);
    const uids: string[] = [];
    for (const name of ['uninstall-a', 'uninstall-b', 'uninstall-c']) {
      await monitors.create(sampleNamed(namespace, name));
      uids.push((await untilSynced(namespace, name)).metadata.uid);
    }
    // Step 1, in this namespace only (`-A` would reach the other test files' namespaces on this shared cluster).
    await kubectl(
      undefined,
      'delete',
      'monitors.meerkat.dev',
      '--all',
      '-n',
      namespace,
      '--wait',
      '--timeout=60s',
    );
    // Step 2, `helm uninstall`: the operator goes.
    await operator?.stop();
    // Step 3 deletes the CRD, which waits for every Monitor to go: none is left to wait for.
    expect(await kubectl(undefined, 'get', 'monitors.meerkat.dev', '-n', namespace, '-o', 'name')).toBe('');
    for (const uid of uids) expect(await hubMonitorStatus(setup.hub, uid)).toBe(404);
  });
});
