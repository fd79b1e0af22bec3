import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { buildConsole, launchBrowser, screenshot, seriousViolations } from './console-browser.js';
import {
  failingMonitor,
  runMonitorOnce,
  startLoopbackServer,
  type LoopbackServer,
} from './console-fixtures.js';

describe('a project’s public status page', () => {
  let hub: TestHub;
  let target: LoopbackServer;
  let browser: Browser;

  beforeAll(async () => {
    const assetsDir = await buildConsole();
    // Fleet figures computed on every request, so the page and the metrics API read the same health.
    hub = await startTestHub({
      redisUrl: null,
      metricsFleetMaxAgePercent: 0,
      console: { signIn: { authMode: 'api-key' }, assetsDir },
    });
    target = await startLoopbackServer(503, { error: 'orders are down' });
    await hub.request('PUT', '/secrets/shop-token', {
      body: { value: 'Bearer t', environment: 'production' },
    });
    for (const [id, project, name] of [
      ['checkout', 'shop', 'checkout'],
      ['search', 'shop', 'search'],
      ['payroll', 'back-office', 'payroll'],
    ])
      expect(
        (
          await hub.request('PUT', `/monitor/${id}`, {
            body: { ...failingMonitor(target.url), project, name },
          })
        ).status,
      ).toBeLessThan(300);
    await runMonitorOnce(hub, 'checkout', []);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([target?.close(), hub?.close()]);
  });

  it('is off until an editor switches it on; a viewer may not, and an unknown project has none', async () => {
    expect((await hub.request('GET', '/status-pages/shop')).status).toBe(404);
    const refused = await hub.request('PUT', '/status-pages/shop', {
      as: 'acmeViewer',
      body: { enabled: true },
    });
    expect(refused.status).toBe(403);
    const invalid = await hub.request('PUT', '/status-pages/shop', { body: { enabled: 'yes' } });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ code: 'validation_failed', details: [{ path: 'enabled' }] });
  });

  it('shows, without a key, the project’s monitor names, health and 90 days of uptime, and nothing else', async () => {
    const on = await hub.request('PUT', '/status-pages/shop', { as: 'acmeEditor', body: { enabled: true } });
    expect(on.status).toBe(200);
    const { slug } = ((await on.json()) as { data: { slug: string } }).data;
    const api = await hub.request('GET', `/status-pages/public/${slug}`, { as: null });
    const { data } = (await api.json()) as { data: { monitors: Array<Record<string, unknown>> } };
    expect(Object.keys(data).sort()).toEqual(['monitors', 'project']);
    // Health as the metrics API tells it to a signed-in caller: search never ran.
    const metrics = await hub.request('GET', '/metrics/monitors?period=24h');
    const health = new Map(
      ((await metrics.json()) as { data: Array<{ monitorName: string; status: string }> }).data.map((m) => [
        m.monitorName,
        m.status,
      ]),
    );
    expect(health.get('checkout')).toBe('failing');
    expect(data.monitors.map((m) => [m.name, m.status, Object.keys(m).sort()])).toEqual([
      ['checkout', 'failing', ['days', 'name', 'status']],
      ['search', health.get('search'), ['days', 'name', 'status']],
    ]);
    expect(JSON.stringify(data)).not.toMatch(/127\.0\.0\.1|acme|production|shop-token|login/);

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${hub.url}/ui/status/${slug}`);
    await page.getByRole('heading', { name: 'shop status' }).waitFor();
    expect(await page.locator('.summary').textContent()).toBe('1 of 2 failing');
    expect(await page.locator('.status-monitors h2').allTextContents()).toEqual([
      'checkout failing',
      `search ${health.get('search')}`,
    ]);
    expect(await page.locator('.status-monitors li').first().locator('ol.uptime li').count()).toBe(90);
    expect(await page.locator('nav').count()).toBe(0);
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length,
      ),
    ).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'status-page');
    await context.close();
  });

  it('answers 404 once switched off, and keeps its address for when it is switched on again', async () => {
    const { slug } = (
      (await (await hub.request('GET', '/status-pages/shop')).json()) as { data: { slug: string } }
    ).data;
    await hub.request('PUT', '/status-pages/shop', { body: { enabled: false } });
    const off = await hub.request('GET', `/status-pages/public/${slug}`, { as: null });
    expect(off.status).toBe(404);
    expect(await off.json()).toMatchObject({ code: 'not_found' });
    const again = await hub.request('PUT', '/status-pages/shop', { body: { enabled: true } });
    expect(((await again.json()) as { data: { slug: string } }).data.slug).toBe(slug);
    expect((await hub.request('GET', `/status-pages/public/${slug}`, { as: null })).status).toBe(200);
  });
});
