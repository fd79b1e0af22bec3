import { METHODS } from 'node:http';
import type { RequestHandler } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../system/metrics-registry.js';

// Seconds: enough to tell a fast answer (under 25 ms) from a slow one and to read a p95 within a bucket's width.
const REQUEST_BUCKETS = [0.005, 0.025, 0.1, 0.5, 2.5];
const knownMethods: ReadonlySet<string> = new Set(METHODS);

/**
 * Times every API request by method, route template (`/monitor/:id`, never the concrete path, so ids do not
 * become labels) and status class (`2xx`, `4xx`, ...). Requests that matched no route are labelled `unmatched`.
 * The series stay bounded by the API itself: about 60 templates, a method or two each, five classes and five
 * buckets; a method Node knows but the API does not use counts as it is, any other as `other`.
 */
export function createHttpRequestMetrics(registry: Registry): RequestHandler {
  const durations = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Duration of hub API requests by method, route template and status class.',
    labelNames: ['method', 'route', 'status_class'],
    buckets: REQUEST_BUCKETS,
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
    res.once('finish', () =>
      stop({
        method: knownMethods.has(req.method) ? req.method : 'other',
        route,
        status_class: `${Math.floor(res.statusCode / 100)}xx`,
      }),
    );
    next();
  };
}
