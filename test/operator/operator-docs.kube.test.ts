// The documentation's Monitor and MaintenanceWindow examples and uninstall order, tried on a real kube-apiserver
// with the operator and a real hub: every `kind: Monitor` and `kind: MaintenanceWindow` document in docs/*.md
// applies with kubectl and is Synced, and the uninstall order of docs/install.md leaves nothing a CRD deletion would
// wait for.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { parseAllDocuments, stringify } from 'yaml';
import { createHubClient } from '../../hub/src/client/hub-client.js';
import { isMaintenanceWindowResource } from '../../hub/src/contract/maintenance-window-resource.js';
import { isMonitorResource } from '../../hub/src/contract/monitor-resource.js';
import type { RunningOperator } from '../../operator/src/start-operator.js';
import { runMeerkat } from '../harness/processes.js';
import { eventually, kubeCluster } from '../kube/test-cluster.js';
import { installMonitorCrd } from './monitor-crd-install.js';
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
/** The operator's log, as `kubectl logs deploy/meerkat-operator` would print it (install.md's uninstall reads it). */
let operatorLog = '';
beforeAll(async () => {
  await installMonitorCrd(new URL('../../crds/maintenancewindows.meerkat.dev.yaml', import.meta.url));
  operator = setup.startTestOperator({
    windows: createHubClient(setup.hub.url, setup.hub.keys.acmeEditor),
    log: pino({ level: 'info' }, { write: (line: string) => void (operatorLog += line) }),
  });
});

/** A line of install.md's uninstall block that starts with `start`. */
function uninstallLine(start: string): string {
  const text = readFileSync(new URL('install.md', docs), 'utf8');
  const line = text.split('\n').find((each) => each.startsWith(start));
  if (line === undefined) throw new Error(`install.md has no line starting ${start}`);
  return line;
}

/** install.md's `meerkat get monitors -l <label>`, with the label the operator logged, against the test hub. */
async function monitorsLabelled(label: string): Promise<string> {
  const [, ...args] = uninstallLine('meerkat get monitors -l ')
    .replace(/\s+#.*$/, '')
    .split(/\s+/);
  const listed = await runMeerkat(
    args.map((arg) => (arg.startsWith('meerkat.dev/cluster=') ? label : arg)),
    {
      MEERKAT_URL: setup.hub.url,
      MEERKAT_API_KEY: setup.hub.keys.acmeEditor,
      MEERKAT_CONFIG: '/nonexistent',
    },
  );
  expect(listed.code, listed.stderr).toBe(0);
  return listed.stdout;
}

/** Every YAML document of a docs page that is a `kind`: in ```yaml blocks and in `<<'YAML'` heredocs. */
function resourceExamples(
  isKind: (resource: unknown) => boolean,
): Array<{ page: string; resource: Record<string, unknown> }> {
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
        if (isKind(resource)) examples.push({ page, resource: { ...(resource as Record<string, unknown>) } });
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
  const examples = resourceExamples(isMonitorResource);
  const windowExamples = resourceExamples(isMaintenanceWindowResource);

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

  it.each(windowExamples.map((example, index) => [`${example.page} #${index + 1}`, example] as const))(
    'the MaintenanceWindow example %s applies with kubectl and is Synced',
    async (_name, { resource }) => {
      const metadata = resource.metadata as { name: string };
      const body = { ...resource, metadata: { ...metadata, namespace: setup.namespace.name } };
      await kubectl(stringify(body), 'apply', '-f', '-');
      const status = await eventually(`${metadata.name} Synced`, async () => {
        const synced = await kubectl(
          undefined,
          'get',
          'maintenancewindows.meerkat.dev',
          metadata.name,
          '-n',
          setup.namespace.name,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Synced")].status} {.status.windowName}',
        );
        return synced.startsWith('True ') ? synced : undefined;
      });
      const hubName = status.split(' ')[1] ?? '';
      expect((await setup.hub.request('GET', `/maintenance-windows/${hubName}`)).status).toBe(200);
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
    // The label install.md finds in the operator's log: its own `grep -o ... | head -1`, run on that log.
    const logged = uninstallLine('kubectl logs -n meerkat deploy/meerkat-operator |');
    const label = execFileSync('bash', ['-c', logged.slice(logged.indexOf('|') + 1)], {
      input: operatorLog,
      encoding: 'utf8',
    }).trim();
    expect(label).toMatch(/^meerkat\.dev\/cluster=(ca|api)-[0-9a-f]{16}$/);
    const before = await monitorsLabelled(label);
    for (const name of ['uninstall-a', 'uninstall-b', 'uninstall-c']) expect(before).toContain(name);
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
    await kubectl(
      undefined,
      'delete',
      'maintenancewindows.meerkat.dev',
      '--all',
      '-n',
      namespace,
      '--wait',
      '--timeout=60s',
    );
    // Step 2: the hub holds none of the cluster's monitors (the operator deletes each at its Monitor's deletion).
    await eventually('every hub monitor deleted', async () => {
      const answer = await setup.hub.request(
        'GET',
        `/monitor/?labelSelector=${encodeURIComponent(`meerkat.dev/namespace=${namespace}`)}`,
      );
      return ((await answer.json()) as { total: number }).total === 0;
    });
    expect(await monitorsLabelled(label)).not.toContain('uninstall-');
    // Step 3, `helm uninstall`: the operator goes.
    await operator?.stop();
    // Step 4 deletes the CRD, which waits for every Monitor to go: none is left to wait for.
    expect(await kubectl(undefined, 'get', 'monitors.meerkat.dev', '-n', namespace, '-o', 'name')).toBe('');
    expect(await kubectl(undefined, 'get', 'mkmw', '-n', namespace, '-o', 'name')).toBe('');
    const windows = (await (await setup.hub.request('GET', '/maintenance-windows')).json()) as {
      data: unknown[];
    };
    expect(windows.data).toEqual([]);
    for (const uid of uids) expect(await hubMonitorStatus(setup.hub, uid)).toBe(404);
  });
});
