// METRICS_BEARER_TOKEN: the metrics server answers /metrics only to a scrape that presents the token, and its
// /healthz (what the Pods' probes call) without one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../hub/src/config/settings.js';
import { startMetricsServer, type RunningMetricsServer } from '../../hub/src/http/metrics-server.js';
import { createMetricsRegistry } from '../../hub/src/system/metrics-registry.js';

const TOKEN = 'a-scrape-token-of-32-characters!';

describe('the metrics server with a bearer token', () => {
  let server: RunningMetricsServer;
  beforeAll(async () => {
    server = await startMetricsServer(createMetricsRegistry('test'), 0, '127.0.0.1', { bearerToken: TOKEN });
  });
  afterAll(() => server.close());

  const scrape = (authorization?: string) =>
    fetch(server.url, authorization === undefined ? {} : { headers: { authorization } });

  it('refuses a scrape without the token, or with another, and reveals no series', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const response = await scrape(authorization);
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.text()).not.toContain('# HELP');
    }
  });

  it('answers the scrape that presents it', async () => {
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('# HELP');
  });

  it('answers /healthz without it', async () => {
    const response = await fetch(server.url.replace('/metrics', '/healthz'));
    expect(response.status).toBe(200);
  });

  it('takes the token from METRICS_BEARER_TOKEN, refusing one too short to be a secret', () => {
    expect(loadSettings({ METRICS_BEARER_TOKEN: TOKEN }, 'admin').METRICS_BEARER_TOKEN).toBe(TOKEN);
    expect(loadSettings({ METRICS_BEARER_TOKEN: '' }, 'admin').METRICS_BEARER_TOKEN).toBeUndefined();
    expect(() => loadSettings({ METRICS_BEARER_TOKEN: 'short' }, 'admin')).toThrow(
      /invalid setting METRICS_BEARER_TOKEN: .*at least 16 characters/,
    );
  });
});
