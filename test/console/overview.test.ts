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
import { failingMonitor, recordFinishedRun, seedFleet } from './console-fixtures.js';

const FLEET = 1000;
/** Every seventh monitor of the fleet failed its run. */
const failingIndices = Array.from({ length: FLEET }, (_, i) => i).filter((i) => i % 7 === 0);
const fleetName = (i: number) => `fleet-${String(i).padStart(4, '0')}`;

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

  it('lists every monitor, failing first, with health, success rate, p95, last run and hour bars (the load time is printed)', async () => {
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
    // A hundred rows at a time; the pager moves through the rest without a request. Failing monitors come first,
    // by name: the second page starts with the 101st of them.
    expect(await page.locator('table.overview tbody tr').count()).toBe(100);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect
      .poll(() => page.locator('table.overview tbody th').first().textContent())
      .toBe(fleetName(failingIndices[100] as number));
    expect(await page.getByRole('navigation', { name: 'Pages of monitors' }).textContent()).toContain(
      'Page 2 of 10',
    );
    await page.getByRole('button', { name: 'Previous' }).click();
    const first = page.locator('table.overview tbody tr').first();
    expect(await first.locator('th').textContent()).toBe('fleet-0000');
    expect(await first.locator('td').nth(2).textContent()).toBe('failing');
    expect(await first.locator('svg.hour-bars').getAttribute('aria-label')).toBe('1 runs, 1 failed in 24 h');
    expect(await first.locator('td').nth(4).textContent()).toMatch(/^\d+ ms$/);
    // The last failing monitor, then the first healthy one: fleet-0001.
    const healths = await page.locator('table.overview tbody tr td:nth-of-type(3)').allTextContents();
    expect(healths.slice(0, 100)).toEqual(Array.from({ length: 100 }, () => 'failing'));
    await page.goto(`${hub.url}/ui/?page=1`);
    await page.locator('table.overview').waitFor();
    const rowNames = await page.locator('table.overview tbody th').allTextContents();
    expect(rowNames[failingIndices.length - 101]).toBe(fleetName(failingIndices.at(-1) as number));
    expect(rowNames[failingIndices.length - 100]).toBe('fleet-0001');
  });

  it('draws each row’s last 24 hours as one bar per hour, each saying its hour and counts', async () => {
    await page.goto(`${hub.url}/ui/?q=fleet-0007`);
    await expect.poll(caption).toBe(`1 of ${FLEET} monitors, figures over 24h`);
    const bars = page.locator('table.overview tbody tr svg.hour-bars');
    const states = ((await bars.getAttribute('data-hours')) ?? '').split(' ');
    expect(states).toHaveLength(24);
    // Its one run, at most an hour ago, is in the last hour or the one before; the hours before it had none.
    expect(states.filter((s) => s === 'down')).toHaveLength(1);
    expect(states.filter((s) => s === 'none')).toHaveLength(23);
    expect(states.indexOf('down')).toBeGreaterThanOrEqual(22);
    expect(await bars.locator('path.down').getAttribute('d')).toBe(
      `M${states.indexOf('down') * 6} 0h5v18h-5z`,
    );
    const box = await bars.boundingBox();
    const hoverHour = (i: number) => page.mouse.move((box?.x ?? 0) + i * 6 + 2.5, (box?.y ?? 0) + 9);
    // The hour under the pointer is told in the page's tooltip.
    await hoverHour(states.indexOf('down'));
    await expect
      .poll(() => page.getByRole('tooltip').textContent())
      .toMatch(/^\d\d:00 UTC: 1 runs, 1 failed$/);
    await hoverHour(0);
    await expect.poll(() => page.getByRole('tooltip').textContent()).toMatch(/^\d\d:00 UTC: no runs$/);
    await page.locator('h1').hover();
    await expect.poll(() => page.getByRole('tooltip').count()).toBe(0);
    expect(box?.width).toBeGreaterThanOrEqual(140);
  });

  it('filters by project, environment and health, and the filters stay in the address', async () => {
    await page.goto(`${hub.url}/ui/`);
    await page.locator('table.overview').waitFor();
    await page.getByLabel('Project').selectOption('team-3');
    await expect.poll(caption).toBe(`100 of ${FLEET} monitors, figures over 24h`);
    await page.getByLabel('Environment').selectOption('staging');
    await expect.poll(caption).toBe(`100 of ${FLEET} monitors, figures over 24h`);
    await page.getByLabel('Environment').selectOption('production');
    await expect.poll(caption).toBe(`0 of ${FLEET} monitors, figures over 24h`);
    await page.getByLabel('Project').selectOption('');
    await page.getByRole('button', { name: /Failing$/ }).click();
    // Every seventh monitor failed its run, and half of those run in production.
    const failingInProduction = failingIndices.filter((i) => i % 2 === 0);
    await expect.poll(caption).toBe(`${failingInProduction.length} of ${FLEET} monitors, figures over 24h`);
    expect(new URL(page.url()).search).toBe('?environment=production&status=failing');
    await page.reload();
    await expect.poll(caption).toBe(`${failingInProduction.length} of ${FLEET} monitors, figures over 24h`);
  });

  it('counts the monitors per health in a strip whose buttons filter, and searches by name', async () => {
    await page.goto(`${hub.url}/ui/`);
    await page.locator('table.overview').waitFor();
    const strip = () => page.locator('.health-summary button').allTextContents();
    const healthy = FLEET - failingIndices.length;
    expect(await strip()).toEqual([
      `${failingIndices.length} Failing`,
      '0 Degraded',
      '0 No data',
      `${healthy} Healthy`,
    ]);
    const healthyButton = page.getByRole('button', { name: /Healthy$/ });
    await healthyButton.click();
    await expect.poll(caption).toBe(`${healthy} of ${FLEET} monitors, figures over 24h`);
    expect(await healthyButton.getAttribute('aria-pressed')).toBe('true');
    expect(new URL(page.url()).searchParams.get('status')).toBe('healthy');
    expect(await page.locator('table.overview tbody th').first().textContent()).toBe('fleet-0001');
    await healthyButton.click();
    await expect.poll(caption).toBe(`${FLEET} of ${FLEET} monitors, figures over 24h`);
    expect(await healthyButton.getAttribute('aria-pressed')).toBe('false');
    // The search narrows the list and the strip's counts alike, and stays in the address.
    await page.getByLabel('Name').fill('FLEET-00');
    await expect.poll(caption).toBe(`100 of ${FLEET} monitors, figures over 24h`);
    const failingOfHundred = failingIndices.filter((i) => i < 100).length;
    expect(await strip()).toEqual([
      `${failingOfHundred} Failing`,
      '0 Degraded',
      '0 No data',
      `${100 - failingOfHundred} Healthy`,
    ]);
    expect(new URL(page.url()).searchParams.get('q')).toBe('FLEET-00');
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

  it('shows "no data" for a monitor that never ran, and a run newer than the figures by its own result', async () => {
    for (const name of ['zz-never-run', 'zz-just-failed'])
      expect(
        (
          await hub.request('PUT', `/monitor/${name}`, {
            body: { ...failingMonitor('https://api.example.com'), name },
          })
        ).status,
      ).toBeLessThan(300);
    await recordFinishedRun(hub, 'zz-just-failed', false);
    await page.goto(`${hub.url}/ui/?q=zz-`);
    await expect.poll(caption).toBe(`2 of ${FLEET + 2} monitors, figures over 24h`);
    const rows = page.locator('table.overview tbody tr');
    expect(await rows.locator('th').allTextContents()).toEqual(['zz-just-failed', 'zz-never-run']);
    expect(await rows.nth(0).locator('td').nth(2).textContent()).toBe('failing');
    expect(await rows.nth(1).locator('td').nth(2).textContent()).toBe('no data');
    expect(await rows.nth(1).locator('td').nth(5).textContent()).toBe('—');
    expect(await rows.nth(1).locator('svg.hour-bars').getAttribute('aria-label')).toBe('no runs in 24 h');
    expect(await page.locator('.health-summary button').allTextContents()).toEqual([
      '1 Failing',
      '0 Degraded',
      '1 No data',
      '0 Healthy',
    ]);
    await page.getByRole('button', { name: /No data$/ }).click();
    await expect.poll(caption).toBe(`1 of ${FLEET + 2} monitors, figures over 24h`);
  });
});
