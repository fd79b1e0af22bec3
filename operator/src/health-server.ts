// `/healthz` and `/readyz` for the kubelet's probes, on a port of their own (HEALTH_PORT, 8081 as in
// controller-runtime), since the metrics helper serves only `/metrics`.
import { createServer } from 'node:http';
import { listen } from '../../hub/src/http/listen.js';

export interface HealthCheck {
  ok: boolean;
  /** Said in the body, so `curl` and the probe's event show why. */
  reason: string;
}

export interface HealthChecks {
  live: () => HealthCheck;
  ready: () => HealthCheck;
}

export async function startHealthServer(checks: HealthChecks, port: number, host: string) {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const check = path === '/healthz' ? checks.live : path === '/readyz' ? checks.ready : undefined;
    if (req.method !== 'GET' || !check) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: probe /healthz or /readyz\n');
      return;
    }
    const { ok, reason } = check();
    res
      .writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' })
      .end(`${ok ? 'ok' : 'not ok'}: ${reason}\n`);
  });
  return listen(server, port, host, { setting: 'HEALTH_PORT' });
}
