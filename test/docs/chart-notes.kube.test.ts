// The commands the chart's NOTES.txt shows after an install, run as written against the test cluster where they
// can run there: step 3's kubectl commands, with the Monitor CRD installed as the chart's operator needs it.
// Steps 1 and 2 start Pods (port-forward, kubectl run), which a cluster without a kubelet cannot run; the chart
// tests check the Service and image they name.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { chartDir, renderChart } from '../chart/render-chart.js';
import { kubeCluster } from '../kube/test-cluster.js';
import { installMonitorCrd } from '../operator/monitor-crd-install.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** The `kubectl` lines of a numbered step of the notes, in order. */
export function kubectlLinesOfStep(notes: string, step: number): string[] {
  const start = notes.indexOf(`\n${step}. `);
  const next = notes.indexOf(`\n${step + 1}. `, start + 1);
  const text = notes.slice(start, next === -1 ? undefined : next);
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('kubectl '));
}

async function kubectl(args: string[]): Promise<{ code: number; output: string }> {
  return promisify(execFile)('kubectl', ['--kubeconfig', kubeCluster().kubeconfigPath, ...args], {
    cwd: repo,
  }).then(
    (done) => ({ code: 0, output: done.stdout + done.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      output: error.stdout + error.stderr,
    }),
  );
}

describe("the chart's NOTES.txt", () => {
  const notes = renderChart([`${chartDir}ci/default-values.yaml`]).notes;

  beforeAll(async () => {
    await installMonitorCrd();
  }, 60_000);

  it('shows step 3 commands that all succeed as written, leaving the sample Monitor in the cluster', async () => {
    const lines = kubectlLinesOfStep(notes, 3);
    expect(lines).toEqual([
      'kubectl create namespace shop',
      'kubectl apply -f config/samples/first-monitor.yaml',
      'kubectl get mkm -n shop',
    ]);
    const outputs: string[] = [];
    for (const line of lines) {
      const ran = await kubectl(line.split(' ').slice(1));
      expect(ran.code, `${line}\n${ran.output}`).toBe(0);
      outputs.push(ran.output);
    }
    expect(outputs[1]).toContain('monitor.meerkat.dev/github-status created');
    expect(outputs[2]).toMatch(/^NAME\b/);
    expect(outputs[2]).toContain('github-status');
  });

  it('names only Monitor resources for kubectl, and the API-form samples for meerkat apply', () => {
    expect(notes).not.toContain('kubectl apply -f config/samples/monitors/\n');
    expect(notes).not.toMatch(/kubectl apply -f config\/samples\/monitors\/?\s/);
    expect(notes).toContain('./bin/meerkat.js apply -f config/samples/monitors --dry-run');
  });
});
