import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleEvaluationHook } from '../../hub/src/notifications/rule-evaluation-hook.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { createWebhookIntegration, recordingDeliveryQueue } from '../notifications/notification-fixtures.js';
import {
  buildConsole,
  launchBrowser,
  screenshot,
  seriousViolations,
  signInWithKey,
} from './console-browser.js';
import {
  failingMonitor,
  runMonitorOnce,
  startLoopbackServer,
  type LoopbackServer,
} from './console-fixtures.js';

describe('the monitor page', () => {
  let hub: TestHub;
  let target: LoopbackServer;
  let browser: Browser;
  let runId: string;

  beforeAll(async () => {
    const assetsDir = await buildConsole();
    hub = await startTestHub({ redisUrl: null, console: { signIn: { authMode: 'api-key' }, assetsDir } });
    target = await startLoopbackServer(503, { error: 'orders are down' });
    await createWebhookIntegration(hub, 'on-call', 'http://127.0.0.1:9/hook');
    await hub.request('PUT', '/secrets/shop-token', {
      body: { value: 'Bearer t', environment: 'production' },
    });
    const saved = await hub.request('PUT', '/monitor/checkout', {
      body: failingMonitor(target.url, 'on-call'),
    });
    expect(saved.status).toBeLessThan(300);
    runId = await runMonitorOnce(hub, 'checkout', [ruleEvaluationHook(recordingDeliveryQueue())]);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([target?.close(), hub?.close()]);
  });

  async function openAs(key: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInWithKey(page, hub.url, key, '/ui/monitors/checkout');
    await page.getByRole('heading', { name: 'Recent runs' }).waitFor();
    return page;
  }

  it('shows today’s uptime bar, latency, the run, the definition and the rule with its last event', async () => {
    const page = await openAs(hub.keys.acmeViewer);
    const days = page.locator('ol.uptime li');
    expect(await days.count()).toBe(90);
    expect(await days.last().getAttribute('class')).toBe('day down');
    expect(await days.first().getAttribute('class')).toBe('day none');
    expect(await page.locator('table.latency caption').textContent()).toMatch(
      /^1 runs over 24h, 0\.0 % successful/,
    );
    expect(await page.locator('.latency-chart canvas').count()).toBe(1);
    // The legend names the series without a "--" waiting for the pointer.
    const legend = await page.locator('.latency-chart .u-legend').textContent();
    expect(legend).toContain('duration (ms)');
    expect(legend).not.toContain('--');
    const run = page.getByRole('link', { name: /UTC$/ }).first();
    expect(await run.getAttribute('href')).toBe(`/ui/runs/${runId}`);
    expect(await page.locator('.graph g.node').count()).toBe(3);
    const rule = page.locator('.rules li').first();
    expect(await rule.textContent()).toContain('run_failed → webhook via on-call');
    expect(await rule.locator('tbody tr td').nth(2).textContent()).toBe('webhook: pending');
    await page.close();
  });

  it('offers no "Run now" to a viewer, whose role may not trigger runs', async () => {
    const page = await openAs(hub.keys.acmeViewer);
    expect(await page.getByRole('button', { name: 'Run now' }).count()).toBe(0);
    await page.close();
  });

  it('lets an editor run the monitor now, from the keyboard, and links to the new run', async () => {
    const page = await openAs(hub.keys.acmeEditor);
    await page.getByRole('button', { name: 'Run now' }).focus();
    await page.keyboard.press('Enter');
    const started = page.locator('.run-now').getByRole('link', { name: /^run_/ });
    await started.waitFor();
    const id = (await started.textContent()) ?? '';
    const stored = await hub.db
      .selectFrom('runs')
      .select(['status', 'triggered_by'])
      .where('id', '=', id)
      .executeTakeFirst();
    expect(stored).toEqual({ status: 'pending', triggered_by: 'manual' });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'monitor-detail');
    await page.close();
  });
});
