import { availableParallelism, loadavg } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../harness/hub.js';
import {
  buildConsole,
  launchBrowser,
  measured,
  screenshot,
  seriousViolations,
  signInWithKey,
} from './console-browser.js';
import { seedFleet } from './console-fixtures.js';

const FLEET = 1000;

describe('the monitors overview at a thousand monitors', () => {
  let hub: TestHub;
  let browser: Browser;
  let page: Page;
  const caption = () => page.locator('table.overview caption').textContent();
  const loadFigures = async () => ({
    answered: (await measured(page, undefined, 'overview-api-answered')).toFixed(0),
    interactive: (await measured(page, undefined, 'overview-interactive')).toFixed(0),
  });

  beforeAll(async () => {
    const assetsDir = await buildConsole();
    hub = await startTestHub({ redisUrl: null, console: { signIn: { authMode: 'api-key' }, assetsDir } });
    await seedFleet(hub, FLEET);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Signed in on a monitor's page, whose figures are not the fleet's: the first overview load measured below is
    // the hub's first (its fleet figures computed cold) and shares the hub with no other page's requests.
    await signInWithKey(page, hub.url, hub.keys.acmeViewer, '/ui/monitors/fleet-0');
    await page.getByRole('heading', { name: 'Recent runs' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('lists every monitor with health, success rate, p95, last run and a sparkline (the load time is printed)', async () => {
    await page.goto(`${hub.url}/ui/`);
    await page.locator('table.overview').waitFor();
    const firstLoad = await loadFigures();
    await page.reload();
    await page.locator('table.overview').waitFor();
    const secondLoad = await loadFigures();
    console.log(
      `console overview, ${FLEET} monitors, ms after navigation: first load API ${firstLoad.answered}, ` +
        `interactive ${firstLoad.interactive}; second load API ${secondLoad.answered}, ` +
        `interactive ${secondLoad.interactive} (load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores)`,
    );
    expect(await caption()).toBe(`${FLEET} of ${FLEET} monitors, figures over 24h`);
    // A hundred rows at a time; the pager moves through the rest without a request.
    expect(await page.locator('table.overview tbody tr').count()).toBe(100);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => page.locator('table.overview tbody th').first().textContent()).toBe('fleet-0100');
    expect(await page.getByRole('navigation', { name: 'Pages of monitors' }).textContent()).toContain(
      'Page 2 of 10',
    );
    await page.getByRole('button', { name: 'Previous' }).click();
    const first = page.locator('table.overview tbody tr').first();
    expect(await first.locator('th').textContent()).toBe('fleet-0000');
    expect(await first.locator('td').nth(2).textContent()).toBe('failing');
    expect(await first.locator('svg.sparkline').getAttribute('aria-label')).toBe('1 runs, 1 failed in 24 h');
    expect(await first.locator('td').nth(4).textContent()).toMatch(/^\d+ ms$/);
  });

  it('filters by project, environment and health, and the filters stay in the address', async () => {
    await page.getByLabel('Project').selectOption('team-3');
    await expect.poll(caption).toBe(`100 of ${FLEET} monitors, figures over 24h`);
    await page.getByLabel('Environment').selectOption('staging');
    await expect.poll(caption).toBe(`100 of ${FLEET} monitors, figures over 24h`);
    await page.getByLabel('Environment').selectOption('production');
    await expect.poll(caption).toBe(`0 of ${FLEET} monitors, figures over 24h`);
    await page.getByLabel('Project').selectOption('');
    await page.getByLabel('Health').selectOption('failing');
    // Every seventh monitor failed its run, and half of those run in production.
    const failingInProduction = Array.from({ length: FLEET }, (_, i) => i).filter(
      (i) => i % 7 === 0 && i % 2 === 0,
    );
    await expect.poll(caption).toBe(`${failingInProduction.length} of ${FLEET} monitors, figures over 24h`);
    expect(new URL(page.url()).search).toBe('?environment=production&status=failing');
    await page.reload();
    await expect.poll(caption).toBe(`${failingInProduction.length} of ${FLEET} monitors, figures over 24h`);
  });

  it('sorts as the metrics API does, with the keyboard', async () => {
    await page.goto(`${hub.url}/ui/?project=team-1`);
    await page.locator('table.overview').waitFor();
    await page.getByLabel('Sort by').focus();
    await page.keyboard.press('ArrowDown'); // success rate
    await page.getByLabel('Order').focus();
    await page.keyboard.press('ArrowDown'); // descending
    await expect.poll(() => new URL(page.url()).searchParams.get('order')).toBe('desc');
    const rates = await page.locator('table.overview tbody tr td:nth-of-type(4)').allTextContents();
    expect(rates[0]).toBe('100 %');
    expect(rates.at(-1)).toBe('0.0 %');
    expect(new URL(page.url()).searchParams.get('sort')).toBe('success_rate');
  });

  it('has no serious accessibility violations', async () => {
    await page.goto(`${hub.url}/ui/?project=team-2`);
    await page.locator('table.overview').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'overview', false);
  });
});
