// The console's maintenance page in a real browser against the real API: the windows with whether they are in force
// and when they next start, the silences with their state, and an editor creating and expiring a deploy silence.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Silence } from '../../hub/src/maintenance/maintenance.schema.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';
import {
  buildConsole,
  launchBrowser,
  screenshot,
  seriousViolations,
  signInWithKey,
} from './console-browser.js';

// Three days from today: a weekly window that is never in force while the test runs (nor last week's).
const WEEKLY_CRON = `0 23 * * ${(new Date().getUTCDay() + 3) % 7}`;

describe('the maintenance page', () => {
  let hub: TestHub;
  let browser: Browser;
  let page: Page;
  const silences = async () =>
    ((await (await hub.request('GET', '/silences')).json()) as { data: Silence[] }).data;

  beforeAll(async () => {
    const assetsDir = await buildConsole();
    hub = await startTestHub({ redisUrl: null, console: { signIn: { authMode: 'api-key' }, assetsDir } });
    const put = (name: string, body: object) =>
      hub.request('PUT', `/maintenance-windows/${name}`, { as: 'acmeEditor', body: { name, ...body } });
    expect(
      (
        await put('weekly-patching', {
          description: 'OS patches',
          matchers: [{ label: 'project', values: ['shop'] }],
          schedule: { type: 'cron', cron: WEEKLY_CRON, timezone: 'Europe/Berlin', durationMinutes: 180 },
        })
      ).status,
    ).toBe(201);
    const now = Date.now();
    expect(
      (
        await put('db-upgrade', {
          matchers: [{ label: 'monitor', values: ['checkout', 'cart'] }],
          schedule: {
            type: 'once',
            startsAt: new Date(now - 60_000).toISOString(),
            endsAt: new Date(now + 3_600_000).toISOString(),
          },
          excludeFromFigures: false,
        })
      ).status,
    ).toBe(201);
    const monitor = monitorDefinition({
      name: 'checkout',
      frequency: { every: 1, unit: 'HOUR' },
      nodes: [{ id: 'w', type: 'WAIT', duration_ms: 1 }],
    });
    expect((await hub.request('PUT', '/monitor/checkout', { as: 'acmeEditor', body: monitor })).status).toBe(
      201,
    );
    const silenced = await hub.request('POST', '/silences', {
      as: 'acmeEditor',
      body: {
        matchers: [{ label: 'environment', values: ['staging'] }],
        duration: '1h',
        comment: 'load test',
      },
    });
    expect(silenced.status).toBe(201);
    browser = await launchBrowser();
    page = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await hub?.close();
  });

  it('shows each window with its schedule, whether it is in force, and the silences with their state', async () => {
    await signInWithKey(page, hub.url, hub.keys.acmeViewer, '/ui/');
    await page.getByRole('link', { name: 'Maintenance' }).click();
    await page.waitForURL((url) => url.pathname === '/ui/maintenance');
    const windows = page.getByRole('table').first();
    const weekly = windows.getByRole('row', { name: /weekly-patching/ });
    await expect
      .poll(() => weekly.textContent())
      .toContain(`cron "${WEEKLY_CRON}" in Europe/Berlin, 180 min each`);
    expect(await weekly.textContent()).toContain('not in force');
    expect(await weekly.textContent()).toContain('project = shop');
    const upgrade = await windows.getByRole('row', { name: /db-upgrade/ }).textContent();
    expect(upgrade).toMatch(/in maintenance until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(upgrade).toContain('monitor = checkout, cart');
    expect(upgrade).toContain('counted');
    const silence = await page.getByRole('row', { name: /load test/ }).textContent();
    expect(silence).toContain('active');
    expect(silence).toContain('environment = staging');
    // A viewer may not write silences: no form, no Expire button.
    expect(await page.getByRole('form', { name: 'New silence' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Expire/ }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('says on a monitor’s page that it is in maintenance, and links to the windows', async () => {
    await page.goto(`${hub.url}/ui/monitors/checkout`);
    const note = page.locator('.maintenance-note');
    await expect.poll(() => note.textContent()).toMatch(/^in maintenance db-upgrade until \d{4}-\d\d-\d\d /);
    expect(await note.textContent()).not.toContain('left out');
    await note.getByRole('link', { name: 'db-upgrade' }).click();
    await page.waitForURL((url) => url.pathname === '/ui/maintenance');
  });

  it('lets an editor create a deploy silence, see a refusal, and expire it', async () => {
    const editorPage = await browser.newPage();
    await signInWithKey(editorPage, hub.url, hub.keys.acmeEditor, '/ui/maintenance');
    const form = editorPage.getByRole('form', { name: 'New silence' });
    await form.getByLabel('Equal to (comma-separated)').fill('checkout');
    await form.getByLabel('For').fill('soon');
    await form.getByLabel('Comment').fill('deploying 4.2');
    await form.getByRole('button', { name: 'Silence' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toContain('duration');
    expect((await silences()).some((s) => s.comment === 'deploying 4.2')).toBe(false);

    await form.getByLabel('For').fill('2h');
    await form.getByRole('button', { name: 'Silence' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toMatch(/^Silence \S+ created\.$/);
    const created = (await silences()).find((s) => s.comment === 'deploying 4.2');
    expect(created).toMatchObject({
      state: 'active',
      matchers: [{ label: 'monitor', operator: '=', values: ['checkout'] }],
    });
    expect(Date.parse(created?.endsAt ?? '') - Date.parse(created?.startsAt ?? '')).toBe(7_200_000);
    const row = editorPage.locator(`tr[data-silence="${created?.id}"]`);
    await expect.poll(() => row.textContent()).toContain('deploying 4.2');
    await screenshot(editorPage, 'maintenance');

    await row.getByRole('button', { name: `Expire silence ${created?.id}` }).click();
    await expect.poll(() => row.textContent()).toContain('expired');
    expect((await silences()).find((s) => s.id === created?.id)?.state).toBe('expired');
    expect(await seriousViolations(editorPage)).toEqual([]);
    await editorPage.close();
  });
});
