// Renders charts/meerkat as `helm template` would, with the Go renderer of test/chart/renderer (see
// docs/adr/0008-chart-rendering-in-tests.md), and parses the output into Kubernetes objects.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const chartDir = fileURLToPath(new URL('../../charts/meerkat/', import.meta.url));

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

export interface RenderedChart {
  objects: KubeObject[];
  notes: string;
  find(kind: string, name: string): KubeObject;
  ofKind(kind: string): KubeObject[];
}

let rendererPath: string | undefined;

/** Builds the renderer once per test process (cached across runs by scripts under test/chart). */
function chartRenderer(): string {
  rendererPath ??= execFileSync('bash', [fileURLToPath(new URL('build-renderer.sh', import.meta.url))], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return rendererPath;
}

/** The APIs the pretend cluster serves; add monitoring.coreos.com/v1 to act as if the Prometheus Operator were there. */
export function renderChart(
  valuesFiles: string[],
  apiVersions = ['v1', 'apps/v1', 'batch/v1'],
  chart = chartDir,
): RenderedChart {
  const output = execFileSync(chartRenderer(), [chart, 'meerkat', apiVersions.join(','), ...valuesFiles], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const files = JSON.parse(output) as Record<string, string>;
  const objects: KubeObject[] = [];
  for (const [file, text] of Object.entries(files)) {
    if (file.endsWith('NOTES.txt')) continue;
    for (const document of parseAllDocuments(text)) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map(String).join('; ')}`);
      const object = document.toJS() as KubeObject | null;
      if (object === null) continue;
      if (
        typeof object.apiVersion !== 'string' ||
        typeof object.kind !== 'string' ||
        !object.metadata?.name
      ) {
        throw new Error(`${file}: a document without apiVersion, kind or metadata.name`);
      }
      objects.push(object);
    }
  }
  return {
    objects,
    notes: files['meerkat/templates/NOTES.txt'] ?? '',
    ofKind: (kind) => objects.filter((o) => o.kind === kind),
    find(kind, name) {
      const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
      if (found === undefined)
        throw new Error(
          `no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`,
        );
      return found;
    },
  };
}
