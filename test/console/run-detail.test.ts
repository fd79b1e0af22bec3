import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInProcessDeliveryQueue } from '../../hub/src/notifications/in-process-delivery-queue.js';
import { startNotifier } from '../../hub/src/server/start-notifier.js';
import { loopbackEgress } from '../harness/egress.js';
import { eventually } from '../harness/eventually.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { createWebhookIntegration } from '../notifications/notification-fixtures.js';
import { silentLog } from '../runs/run-fixtures.js';
import { buildConsole, launchBrowser, measured, screenshot, seriousViolations } from './console-browser.js';
import {
  failingMonitor,
  runMonitorOnce,
  startLoopbackServer,
  type LoopbackServer,
} from './console-fixtures.js';

describe('the run page a notification links to', () => {
  let hub: TestHub;
  let target: LoopbackServer;
  let receiver: LoopbackServer;
  let notifier: Awaited<ReturnType<typeof startNotifier>>;
  let browser: Browser;
  let page: Page;
  let link: string;

  beforeAll(async () => {
    const assetsDir = await buildConsole();
    hub = await startTestHub({ redisUrl: null, console: { signIn: { authMode: 'api-key' }, assetsDir } });
    target = await startLoopbackServer(503, { error: 'orders are down', orderId: 'o-1042' });
    receiver = await startLoopbackServer(204, {});
    notifier = await startNotifier({
      settings: { REDIS_URL: undefined, SLACK_API_URL: 'http://127.0.0.1:9/api/', PUBLIC_URL: hub.url },
      log: silentLog,
      components: { db: hub.db, cipher: hub.cipher },
      deliveries: createInProcessDeliveryQueue({ backoffMs: 20 }),
      egress: loopbackEgress,
    });
    await createWebhookIntegration(hub, 'on-call', `${receiver.url}/hook`);
    const secret = await hub.request('PUT', '/secrets/shop-token', {
      body: { value: 'Bearer s3cr3t-value', environment: 'production' },
    });
    expect(secret.status).toBeLessThan(300);
    const saved = await hub.request('PUT', '/monitor/checkout', {
      body: failingMonitor(target.url, 'on-call'),
    });
    expect(saved.status).toBeLessThan(300);
    await runMonitorOnce(hub, 'checkout', [notifier.hook]);
    const payload = await eventually(() => Promise.resolve(receiver.bodies[0]));
    link = (JSON.parse(payload) as { link: string }).link;
    browser = await launchBrowser();
    page = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await notifier?.close();
    await Promise.all([target?.close(), receiver?.close(), hub?.close()]);
  });

  it('serves the console under /ui/ with a content security policy, and a missing asset is a JSON 404', async () => {
    const index = await fetch(`${hub.url}/ui/monitors/anything`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await index.text()).toContain('<div id="app">');
    const missing = await fetch(`${hub.url}/ui/assets/gone-0000.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
    const config = await fetch(`${hub.url}/ui/config.json`);
    expect(await config.json()).toEqual({ data: { authMode: 'api-key' } });
  });

  it('the webhook payload links to the run page on PUBLIC_URL', () => {
    expect(link).toMatch(new RegExp(`^${hub.url}/ui/runs/run_[A-Za-z0-9-]+$`));
  });

  it('refuses a wrong API key on the sign-in page, which has no serious accessibility violations', async () => {
    await page.goto(link);
    await page.waitForURL(/\/ui\/sign-in$/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('API key').fill('mk_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The hub refused this key.');
    await screenshot(page, 'sign-in');
  });

  it('signs in with the keyboard alone and lands on the run the link named', async () => {
    const path = new URL(link).pathname;
    await page.goto(link);
    await page.waitForURL(/\/ui\/sign-in$/);
    // The address changes before the form is drawn; keys pressed earlier would land on an emptier page.
    await page.getByLabel('API key').waitFor();
    await page.keyboard.press('Tab'); // the skip link
    await page.keyboard.press('Tab'); // the brand link
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document
            .activeElement?.id,
      ),
    ).toBe('api-key');
    await page.keyboard.type(hub.keys.acmeViewer);
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === path);
    await page.getByRole('heading', { name: /Run of checkout/ }).waitFor();
  });

  it('shows the waterfall, the failed assertion with expected and actual, the secret header hidden and the failed node', async () => {
    await page.getByRole('heading', { name: 'Waterfall' }).waitFor();
    const rows = page.locator('.waterfall tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await page.locator('.waterfall tr[data-node="order"] .bar').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('.waterfall tr[data-node="order"] td').last().textContent()).toMatch(
      /Connect \d+ ms.*First byte \d+ ms.*Transfer \d+ ms/,
    );
    const failed = page.locator('.assertions tr.failed');
    expect(await failed.count()).toBe(1);
    expect(await failed.locator('td').allTextContents()).toEqual([
      'failed',
      'order',
      'status',
      'EQUAL',
      '200',
      '503',
    ]);
    // The order's answer, as the runner kept it.
    expect(await page.locator('.request figure.excerpt').last().textContent()).toContain('orders are down');
    const headers = await page.locator('.request table.headers').first().textContent();
    expect(headers).toContain('[secret]');
    expect(await page.content()).not.toContain('s3cr3t-value');
    expect(await page.locator('.graph g.node.failed').getAttribute('data-node')).toBe('check-order');
    expect(await page.locator('.errors').textContent()).toContain('assertion');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'run-detail');
  });

  it('renders the run soon after the API answers (the figure is printed, not asserted)', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Waterfall' }).waitFor();
    const afterAnswer = await measured(page, 'run-api-answered', 'run-rendered');
    console.log(`console run detail: rendered ${afterAnswer.toFixed(1)} ms after the API answered`);
    expect(Number.isFinite(afterAnswer)).toBe(true);
  });
});
