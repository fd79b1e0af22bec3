import type { Logger } from 'pino';
import type { Settings } from '../../config/settings.js';
import { createMetricsRegistry, type MeerkatRegistry } from '../../system/metrics-registry.js';
import { startMetricsServer } from '../../http/metrics-server.js';

export interface ProcessMetrics {
  registry: MeerkatRegistry;
  close(): Promise<void>;
}

/** A long-running process's registry, exposed on METRICS_PORT of HOST. */
export async function startProcessMetrics(
  processKind: string,
  settings: Readonly<Pick<Settings, 'HOST' | 'METRICS_PORT' | 'METRICS_BEARER_TOKEN'>>,
  log: Logger,
): Promise<ProcessMetrics> {
  const registry = createMetricsRegistry(processKind);
  const server = await startMetricsServer(registry, settings.METRICS_PORT, settings.HOST, {
    bearerToken: settings.METRICS_BEARER_TOKEN,
  });
  log.info({ url: server.url }, 'prometheus metrics listening');
  return { registry, close: () => server.close() };
}
