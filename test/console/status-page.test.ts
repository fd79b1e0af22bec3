import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { buildConsole, launchBrowser, screenshot, seriousViolations } from './console-browser.js';
import {
  failingMonitor,
  recordFinishedRun,
  runMonitorOnce,
  startLoopbackServer,
  type LoopbackServer,
} from './console-fixtures.js';

/** Any string `re` matches, inside a `toEqual`. */
const matching = (re: RegExp) => expect.stringMatching(re) as string;

/** The day of the week (0 Sunday) three days from today, UTC: a weekly window that is never in force now. */
const THREE_DAYS_ON = (new Date().getUTCDay() + 3) % 7;

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
    // Five days ago, search failed for two runs in one hour and passed in the next: one resolved incident.
    const fiveDaysAgo = new Date(Date.now() - 5 * 86_400_000);
    fiveDaysAgo.setUTCHours(10, 5, 0, 0);
    const later = (minutes: number) => new Date(fiveDaysAgo.getTime() + minutes * 60_000);
    await recordFinishedRun(hub, 'search', false, later(0));
    await recordFinishedRun(hub, 'search', false, later(30));
    await recordFinishedRun(hub, 'search', true, later(70));
    const put = (name: string, body: object) =>
      hub.request('PUT', `/maintenance-windows/${name}`, { as: 'acmeEditor', body: { name, ...body } });
    const now = Date.now();
    for (const [name, body] of [
      [
        'db-upgrade',
        {
          matchers: [{ label: 'monitor', values: ['checkout'] }],
          schedule: {
            type: 'once',
            startsAt: new Date(now - 60_000).toISOString(),
            endsAt: new Date(now + 3_600_000).toISOString(),
          },
        },
      ],
      [
        'weekly-patching',
        {
          matchers: [{ label: 'project', values: ['shop'] }],
          // Three days from today, so that no run of the test falls inside it (nor inside last week's).
          schedule: {
            type: 'cron',
            cron: `0 23 * * ${THREE_DAYS_ON}`,
            timezone: 'UTC',
            durationMinutes: 180,
          },
        },
      ],
      [
        'payroll-only',
        {
          matchers: [{ label: 'project', values: ['back-office'] }],
          schedule: { type: 'cron', cron: '0 1 * * *', timezone: 'UTC', durationMinutes: 60 },
        },
      ],
    ] as const)
      expect((await put(name, body)).status).toBe(201);
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

  it('shows, without a key, the project’s monitor names, health, 90 days of uptime, incidents and maintenance, and nothing else', async () => {
    const on = await hub.request('PUT', '/status-pages/shop', { as: 'acmeEditor', body: { enabled: true } });
    expect(on.status).toBe(200);
    const { slug } = ((await on.json()) as { data: { slug: string } }).data;
    const api = await hub.request('GET', `/status-pages/public/${slug}`, { as: null });
    const { data } = (await api.json()) as {
      data: { monitors: Array<Record<string, unknown>>; incidents: unknown[]; maintenance: unknown[] };
    };
    // Incidents of the last 90 days to the hour, newest first: checkout fails now, search failed five days ago.
    const searchDay = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
    expect(data.incidents).toEqual([
      { monitor: 'checkout', start: matching(/T\d\d:00:00\.000Z$/), end: null, failedRuns: 1 },
      {
        monitor: 'search',
        start: `${searchDay}T10:00:00.000Z`,
        end: `${searchDay}T11:00:00.000Z`,
        failedRuns: 2,
      },
    ]);
    expect(data.maintenance).toEqual([
      {
        name: 'db-upgrade',
        start: matching(/Z$/),
        end: matching(/Z$/),
        active: true,
        monitors: ['checkout'],
      },
      {
        name: 'weekly-patching',
        start: matching(/T23:00:00\.000Z$/),
        end: matching(/T02:00:00\.000Z$/),
        active: false,
        monitors: ['checkout', 'search'],
      },
    ]);
    expect(Object.keys(data).sort()).toEqual(['incidents', 'maintenance', 'monitors', 'project']);
    // Health as the metrics API tells it to a signed-in caller, but "unknown" where it says degraded for want of
    // runs: search has not run in the last 24 hours.
    const metrics = await hub.request('GET', '/metrics/monitors?period=24h');
    const health = new Map(
      ((await metrics.json()) as { data: Array<{ monitorName: string; status: string }> }).data.map((m) => [
        m.monitorName,
        m.status,
      ]),
    );
    expect(health.get('checkout')).toBe('failing');
    expect(health.get('search')).toBe('degraded');
    expect(data.monitors.map((m) => [m.name, m.status, Object.keys(m).sort()])).toEqual([
      ['checkout', 'failing', ['days', 'name', 'status']],
      ['search', 'unknown', ['days', 'name', 'status']],
    ]);
    expect(JSON.stringify(data)).not.toMatch(/127\.0\.0\.1|acme|production|shop-token|login|mnt_|matchers/);

    const context = await browser.newContext();
    const page = await context.newPage();
    // Every request of the public page must succeed: no key, so anything refused would be an error in its console.
    const refused: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(`${hub.url}/ui/status/${slug}`);
    await page.getByRole('heading', { name: 'shop status' }).waitFor();
    expect(await page.locator('.status-monitors h2').allTextContents()).toEqual([
      'checkout failing',
      'search no data',
    ]);
    const checkout = page.locator('.status-monitors > li').first();
    expect(await checkout.locator('ol.uptime li').count()).toBe(90);
    // Dates under the bars, and each bar's date and figure as its tooltip.
    const today = new Date().toISOString().slice(0, 10);
    const firstDay = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
    expect(await checkout.locator('.uptime-axis span').allTextContents()).toEqual([
      firstDay,
      `${today} (today, UTC)`,
    ]);
    expect(await checkout.locator('ol.uptime li').last().getAttribute('title')).toBe(`${today}: 0.0 % up`);
    expect(await checkout.locator('ol.uptime li').first().getAttribute('title')).toBe(`${firstDay}: no runs`);
    expect(await checkout.locator('.uptime-figure').textContent()).toBe('0.0 % uptime over 90 days');
    const search = page.locator('.status-monitors > li').nth(1);
    expect(await search.locator('.uptime-figure').textContent()).toMatch(/^\d+\.\d % uptime over 90 days$/);
    // Incidents, newest first: checkout's goes on, search's lasted its hour.
    const incidents = page.locator('.status-incidents li');
    expect(await incidents.count()).toBe(2);
    expect(await incidents.nth(0).textContent()).toMatch(
      /^checkout ongoing since \d{4}-\d\d-\d\d \d\d:00:00 UTC · 1 failed run$/,
    );
    expect(await incidents.nth(1).textContent()).toBe(
      `search resolved ${searchDay} 10:00:00 UTC to ${searchDay} 11:00:00 UTC (1 h) · 2 failed runs`,
    );
    // Maintenance in force first, then the next one; a window over another project's monitors is not shown.
    const windows = page.locator('.status-maintenance li');
    expect(await windows.count()).toBe(2);
    expect(await windows.nth(0).textContent()).toMatch(/^db-upgrade in progressuntil .+ UTC · checkout$/);
    expect(await windows.nth(1).textContent()).toMatch(
      /^weekly-patching scheduled\d{4}-\d\d-\d\d 23:00:00 UTC to \d{4}-\d\d-\d\d 02:00:00 UTC · checkout, search$/,
    );
    expect(await page.locator('.summary').textContent()).toBe('1 of 2 failing · maintenance in progress');
    // The console's icon is a bundled asset, not a request the API refuses.
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(icon).toMatch(/^\/ui\/assets\/favicon-[\w-]+\.svg$/);
    const iconAnswer = await fetch(`${hub.url}${icon}`);
    expect(iconAnswer.status).toBe(200);
    expect(iconAnswer.headers.get('content-type')).toContain('image/svg+xml');
    expect(refused).toEqual([]);
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
