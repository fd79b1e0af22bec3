import { Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';

type RunLabels = Record<'organization' | 'monitor' | 'location' | 'environment', string>;

/** The TLS facts a run's step may carry (runner/tls-facts.ts): only the date is read here. */
interface StepWithTls {
  nodeId?: unknown;
  tls?: { earliestNotAfter?: unknown };
}

/**
 * `meerkat_tls_cert_not_after_seconds`: per monitor, location and node, the earliest notAfter (Unix seconds) of
 * the certificate chain its last run that reached the server saw, as blackbox_exporter's
 * `probe_ssl_earliest_cert_expiry`. A failed connection leaves the last value: an alert on "expires within 14
 * days" should not flap because one run could not connect. Node ids are bounded by the definition (100 nodes).
 */
export function createTlsExpiryGauge(registry: Registry) {
  const gauge = new Gauge({
    name: `${METRIC_PREFIX}tls_cert_not_after_seconds`,
    help: 'Earliest notAfter (Unix seconds) in the TLS certificate chain of a node, from its last run.',
    labelNames: ['organization', 'monitor', 'location', 'environment', 'node'],
    registers: [registry],
  });
  // The nodes with a series, per run label set, so a monitor's removal takes them all.
  const nodesOf = new Map<string, Set<string>>();
  const keyOf = (labels: RunLabels) => JSON.stringify(labels);

  return {
    record(labels: RunLabels, steps: unknown): void {
      if (!Array.isArray(steps)) return;
      for (const step of steps as StepWithTls[]) {
        const notAfter = step.tls?.earliestNotAfter;
        if (typeof step.nodeId !== 'string' || typeof notAfter !== 'string') continue;
        const seconds = Date.parse(notAfter) / 1000;
        if (!Number.isFinite(seconds)) continue;
        gauge.set({ ...labels, node: step.nodeId }, seconds);
        const key = keyOf(labels);
        nodesOf.set(key, (nodesOf.get(key) ?? new Set()).add(step.nodeId));
      }
    },
    remove(labels: RunLabels): void {
      const key = keyOf(labels);
      for (const node of nodesOf.get(key) ?? []) gauge.remove({ ...labels, node });
      nodesOf.delete(key);
    },
  };
}
