// What the Prometheus Operator makes of the chart's ServiceMonitor, for a Prometheus that scrapes local
// processes instead of Pods: the Services it selects, the Deployments those select, and per Pod the target
// labels the operator's generated relabelings give (job from the Service name or its `jobLabel`, namespace,
// service, pod, container, endpoint), then the ServiceMonitor's own relabelings, applied by Prometheus itself.
// So a chart whose labels, ports or job names do not fit the rules fails the tests that use this.
import type { KubeObject, RenderedChart } from '../chart/render-chart.js';
import type { ScrapeJob } from '../harness/prometheus.js';

interface ServiceMonitorSpec {
  selector: { matchLabels: Record<string, string> };
  jobLabel?: string;
  endpoints: Array<{ port: string; path?: string; relabelings?: Array<Record<string, unknown>> }>;
}
interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: Array<{ name: string; ports?: Array<{ name: string }> }> };
}

/** Prometheus's `__meta_kubernetes_*_label_<name>`: every character outside [a-zA-Z0-9_] becomes `_`. */
const metaName = (label: string) => label.replace(/[^a-zA-Z0-9_]/g, '_');
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);
/** `sourceLabels` -> `source_labels`: the ServiceMonitor's RelabelConfig fields in Prometheus's spelling. */
const snakeCase = (relabel: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(relabel).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
  );

/**
 * One scrape job per ServiceMonitor endpoint. `addressOf(component)` is the local `host:port` of the process
 * that plays the chart's Pods of that component (`hub`, `worker`, ...); a component it does not know is not
 * started by the test, and its Pods are left out.
 */
export function scrapeJobsOf(
  chart: RenderedChart,
  namespace: string,
  addressOf: (component: string) => string | undefined,
): ScrapeJob[] {
  const deployments = chart.ofKind('Deployment');
  return chart.ofKind('ServiceMonitor').flatMap((monitor) => {
    const spec = monitor.spec as ServiceMonitorSpec;
    const services = chart
      .ofKind('Service')
      .filter((service) => matches(spec.selector.matchLabels, service.metadata.labels));
    return spec.endpoints.map((endpoint, index): ScrapeJob => {
      const targets = services.flatMap((service) =>
        podTargets(service, deployments, endpoint.port, namespace),
      );
      const local = targets.flatMap(({ component, labels }) => {
        const address = addressOf(component);
        return address === undefined ? [] : [{ targets: [address], labels }];
      });
      return {
        job_name: `serviceMonitor/${namespace}/${monitor.metadata.name}/${index}`,
        metrics_path: endpoint.path ?? '/metrics',
        static_configs: local,
        relabel_configs: [
          { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
          { source_labels: ['__meta_kubernetes_service_name'], target_label: 'service' },
          { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
          { source_labels: ['__meta_kubernetes_pod_container_name'], target_label: 'container' },
          { source_labels: ['__meta_kubernetes_service_name'], target_label: 'job' },
          ...(spec.jobLabel === undefined
            ? []
            : [
                {
                  source_labels: [`__meta_kubernetes_service_label_${metaName(spec.jobLabel)}`],
                  target_label: 'job',
                  regex: '(.+)',
                },
              ]),
          { target_label: 'endpoint', replacement: endpoint.port },
          ...(endpoint.relabelings ?? []).map(snakeCase),
        ],
      };
    });
  });
}

/** The Pods of the Deployments `service` selects that have a container port named `port`. */
function podTargets(
  service: KubeObject,
  deployments: KubeObject[],
  port: string,
  namespace: string,
): Array<{ component: string; labels: Record<string, string> }> {
  const servicePorts = (service.spec as { ports: Array<{ name: string; targetPort: unknown }> }).ports;
  const servicePort = servicePorts.find((p) => p.name === port);
  if (servicePort === undefined) return [];
  const selector = (service.spec as { selector: Record<string, string> }).selector;
  return deployments.flatMap((deployment) => {
    const template = (deployment.spec as { template: PodTemplate }).template;
    if (!matches(selector, template.metadata.labels)) return [];
    const container = template.spec.containers.find((c) =>
      (c.ports ?? []).some((p) => p.name === servicePort.targetPort),
    );
    if (container === undefined) return [];
    const labels: Record<string, string> = {
      __meta_kubernetes_namespace: namespace,
      __meta_kubernetes_service_name: service.metadata.name,
      __meta_kubernetes_pod_name: `${deployment.metadata.name}-0`,
      __meta_kubernetes_pod_container_name: container.name,
    };
    for (const [key, value] of Object.entries(template.metadata.labels))
      labels[`__meta_kubernetes_pod_label_${metaName(key)}`] = value;
    for (const [key, value] of Object.entries(service.metadata.labels ?? {}))
      labels[`__meta_kubernetes_service_label_${metaName(key)}`] = value;
    return [{ component: template.metadata.labels['app.kubernetes.io/component'] ?? '', labels }];
  });
}
