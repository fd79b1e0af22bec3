import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { listen } from './listen.js';
import { MeerkatRegistry } from '../system/metrics-registry.js';

export interface RunningMetricsServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** METRICS_BEARER_TOKEN: when set, /metrics answers only a scrape that presents it (docs/security.md). */
export const metricsBearerTokenSchema = z
  .string()
  .trim()
  .min(16, 'must be at least 16 characters (e.g. `openssl rand -hex 32`)')
  .optional()
  .or(z.literal('').transform(() => undefined));

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether the request carries `Authorization: Bearer <token>`; compared in constant time. */
function bearerMatches(req: IncomingMessage, expected: Buffer): boolean {
  const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
}

/**
 * Serves `GET /metrics` (Prometheus text format) on its own port, apart from the API; with `bearerToken`
 * (METRICS_BEARER_TOKEN) only to a scrape that presents it, since the series name every organization's
 * monitors (docs/security.md). `GET /healthz` answers without a token: what the Pods' probes call.
 */
export async function startMetricsServer(
  registry: Registry,
  port: number,
  host: string,
  options: { bearerToken?: string | undefined; setting?: string } = {},
): Promise<RunningMetricsServer> {
  const expected = options.bearerToken === undefined ? undefined : digest(options.bearerToken);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: scrape /metrics\n');
      return;
    }
    if (expected !== undefined && !bearerMatches(req, expected)) {
      res
        .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
        .end('scraping needs the bearer token of METRICS_BEARER_TOKEN\n');
      return;
    }
    const chunks =
      registry instanceof MeerkatRegistry
        ? registry.metricsChunks()
        : registry.metrics().then((text) => [text]);
    chunks.then(
      (written) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        for (const chunk of written) res.write(chunk);
        res.end();
      },
      (error: unknown) =>
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics collection failed: ${String(error)}\n`),
    );
  });
  const { url, close } = await listen(server, port, host, { setting: options.setting ?? 'METRICS_PORT' });
  return { server, url: `${url}/metrics`, close };
}
