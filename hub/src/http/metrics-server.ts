import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { listen } from './listen.js';

export interface RunningMetricsServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Serves `GET /metrics` (Prometheus text format, no auth) on its own port, apart from the API. */
export async function startMetricsServer(
  registry: Registry,
  port: number,
  host: string,
  setting = 'METRICS_PORT',
): Promise<RunningMetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: scrape /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) =>
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics collection failed: ${String(error)}\n`),
    );
  });
  const { url, close } = await listen(server, port, host, { setting });
  return { server, url: `${url}/metrics`, close };
}
