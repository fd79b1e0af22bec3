import type { RequestHandler } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './metrics-registry.js';

/**
 * Times every API request by method, route template (`/monitor/:id`, never the concrete path, so ids do not
 * become labels) and status code. Requests that matched no route are labelled `unmatched`.
 */
export function createHttpRequestMetrics(registry: Registry): RequestHandler {
  const durations = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Duration of hub API requests by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return (req, res, next) => {
    const stop = durations.startTimer();
    // Express resets `req.baseUrl` once a router is left (an error thrown in a route reaches the error
    // middleware that way), so the template is captured at the moment the router matches the route.
    let route = 'unmatched';
    let matched: unknown;
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => matched,
      set(value: { path?: unknown } | undefined) {
        matched = value;
        if (typeof value?.path === 'string') route = `${req.baseUrl}${value.path}`;
      },
    });
    res.once('finish', () => stop({ method: req.method, route, status_code: String(res.statusCode) }));
    next();
  };
}
