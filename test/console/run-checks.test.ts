import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeartbeatService } from '../../hub/src/heartbeats/heartbeat.service.js';
import { rollupHook } from '../../hub/src/metrics/rollup-hook.js';
import { handClock, mintToken, runsOf } from '../heartbeats/heartbeat-fixtures.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { monitorDefinition } from '../harness/monitors.js';
import { silentLog } from '../runs/run-fixtures.js';
import { startCheckTargets, type CheckTargets } from '../docs/check-sample-targets.js';
import {
  buildConsole,
  launchBrowser,
  screenshot,
  seriousViolations,
  signInWithKey,
} from './console-browser.js';
import { runMonitorOnce } from './console-fixtures.js';

describe('the run page of TCP, DNS, gRPC and HTTPS checks, and of heartbeats', () => {
  let hub: TestHub;
  let targets: CheckTargets;
  let browser: Browser;
  let page: Page;
  const clock = handClock();
  const panel = (node: string) => page.locator(`section.check[data-node="${node}"]`);
  /** A definition list's terms and descriptions, as "term: description" in order. */
  const factList = async (dl: Locator) => {
    const [terms, descriptions] = await Promise.all([
      dl.locator('dt').allTextContents(),
      dl.locator('dd').allTextContents(),
    ]);
    return terms.map((term, i) => `${term}: ${descriptions[i]}`);
  };
  const factsOf = async (dl: Locator) =>
    Object.fromEntries((await factList(dl)).map((line) => line.split(/: (.*)/s).slice(0, 2))) as Record<
      string,
      string
    >;

  beforeAll(async () => {
    const assetsDir = await buildConsole();
    hub = await startTestHub({
      redisUrl: null,
      clock,
      runFinishedHooks: [rollupHook],
      console: { signIn: { authMode: 'api-key' }, assetsDir },
    });
    targets = await startCheckTargets();
    const saved = await hub.request('PUT', '/monitor/platform', {
      body: monitorDefinition({
        name: 'platform',
        nodes: [
          // The runner does not trust the test CA: with verification off the facts are recorded all the same.
          {
            id: 'web',
            type: 'HTTP_REQUEST',
            method: 'GET',
            base: `https://127.0.0.1:${targets.https.port}`,
            path: '/',
            response_format: 'JSON',
            verify_tls: false,
          },
          {
            id: 'cache',
            type: 'TCP_CONNECT',
            host: '127.0.0.1',
            port: targets.tcp.port,
            expect: 'ESMTP',
          },
          {
            id: 'lookup',
            type: 'DNS_QUERY',
            name: 'example.com',
            record_type: 'A',
            resolver: '127.0.0.1',
            resolver_port: targets.dns.port,
          },
          {
            id: 'search',
            type: 'GRPC_HEALTH_CHECK',
            host: '127.0.0.1',
            port: targets.grpc.port,
            service: 'shop.v1.Search',
          },
          {
            id: 'checks',
            type: 'ASSERTION',
            assertions: [
              {
                nodeId: 'search',
                subject: 'servingStatus',
                predicate: { type: 'binary', operator: 'EQUAL', expected: 'SERVING' },
              },
              {
                nodeId: 'web',
                subject: 'certificateExpiresInDays',
                predicate: { type: 'binary', operator: 'GREATER_THAN', expected: 100 },
              },
            ],
          },
        ],
        edges: [
          { from: 'search', to: 'checks' },
          { from: 'web', to: 'checks' },
        ],
      }),
    });
    expect(saved.status).toBeLessThan(300);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([targets?.close(), hub?.close()]);
  });

  it('shows each check’s answer: bytes read, DNS records, the serving status, and the certificate', async () => {
    const runId = await runMonitorOnce(hub, 'platform', []);
    await signInWithKey(page, hub.url, hub.keys.acmeViewer, `/ui/runs/${runId}`);
    await page.getByRole('heading', { name: 'Waterfall' }).waitFor();
    expect(await page.locator('.waterfall tbody tr').count()).toBe(5);

    expect(await panel('cache').locator('h3').textContent()).toBe(
      `cache: TCP tcp://127.0.0.1:${targets.tcp.port}`,
    );
    expect(await panel('cache').locator('p').first().textContent()).toBe('Received 27 bytes');
    expect(await panel('cache').locator('figure.excerpt pre').textContent()).toBe(
      '220 mail.test ESMTP ready\r\n',
    );

    expect(await panel('lookup').locator('.rcode').textContent()).toBe('NOERROR');
    expect(await panel('lookup').locator('table.dns-answers tbody td').allTextContents()).toEqual([
      'example.com',
      'A',
      '300 s',
      '192.0.2.80',
    ]);

    // An unknown service is an answer (NOT_FOUND): the step passes, and the assertion on it fails.
    expect(await panel('search').locator('.serving').textContent()).toBe('SERVICE_UNKNOWN');
    expect(await panel('search').textContent()).toContain('(gRPC status 5)');
    expect(await page.locator('.assertions tr.failed td:nth-of-type(2)').allTextContents()).toEqual([
      'search',
      'web',
    ]);

    const tls = page.locator('section.request dl.tls-facts');
    const facts = await factsOf(tls);
    expect(facts.TLS).toMatch(/^TLSv1\.[23]$/);
    expect(facts.Chain).toMatch(/^not verified: /);
    expect(facts.Subject).toBe('CN=127.0.0.1');
    expect(facts.Names).toBe('IP Address:127.0.0.1');
    expect(facts['Leaf expires']).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in (89|90) days\)$/);
    expect(facts['Chain expires']).toContain('CN=127.0.0.1');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'run-checks');
  });

  it('shows a heartbeat’s ping with its note, and a missed period with its deadline, instead of a waterfall', async () => {
    const saved = await hub.request('PUT', '/monitor/nightly-backup', {
      body: {
        project: 'jobs',
        name: 'nightly-backup',
        version: '1.0',
        environment: 'production',
        frequency: { every: 1, unit: 'HOUR' },
        heartbeat: { grace_seconds: 600 },
      },
    });
    expect(saved.status).toBeLessThan(300);
    const token = await mintToken(hub, 'nightly-backup');
    expect((await fetch(`${hub.url}/ping/${token}/start`, { method: 'POST' })).status).toBeLessThan(300);
    clock.advance(42_000);
    const pingedAt = clock.now().toISOString();
    const ping = await fetch(`${hub.url}/ping/${token}`, { method: 'POST', body: 'backed up 42 GB' });
    expect(ping.status).toBeLessThan(300);
    clock.advance(3_600_000 + 601_000);
    const misses = createHeartbeatService({ db: hub.db, clock, hooks: [rollupHook], log: silentLog });
    expect(await misses.recordMisses()).toBe(1);
    const [pinged, missed] = await runsOf(hub, 'nightly-backup');

    await page.goto(`${hub.url}/ui/runs/${pinged?.id}`);
    await page.getByRole('heading', { name: 'Heartbeat' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Waterfall' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Graph' }).count()).toBe(0);
    const utc = (iso: string) => `${iso.replace('T', ' ').slice(0, 19)} UTC`;
    expect(await factList(page.locator('section.heartbeat dl'))).toEqual([
      'State: pinged',
      `Ping received: ${utc(pingedAt)}`,
      `Job started: ${utc(new Date(Date.parse(pingedAt) - 42_000).toISOString())}`,
    ]);
    expect(await page.locator('section.heartbeat p.muted').textContent()).toBe(
      'Expects a ping every 1 hour, with 600 s of grace.',
    );
    expect(await page.locator('section.heartbeat figure.excerpt pre').textContent()).toBe('backed up 42 GB');
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${hub.url}/ui/runs/${missed?.id}`);
    await page.getByRole('heading', { name: 'Heartbeat' }).waitFor();
    const deadline = new Date(Date.parse(pingedAt) + 3_600_000 + 600_000).toISOString();
    expect(await factList(page.locator('section.heartbeat dl'))).toEqual([
      'State: missed',
      `Deadline: ${utc(deadline)}`,
      `Last ping: ${utc(pingedAt)}`,
      'Periods missed: 1',
    ]);
    expect(await page.locator('.errors').textContent()).toContain('no ping within the period (1 h)');
    await screenshot(page, 'run-heartbeat');

    // Its monitor page has no graph and no "Run now": what it expects, its state and its last ping.
    await page.goto(`${hub.url}/ui/monitors/nightly-backup`);
    await page.getByRole('heading', { name: 'Definition' }).waitFor();
    expect(await factList(page.locator('dl.heartbeat-summary'))).toEqual([
      'Kind: Heartbeat: a ping every 1 hour, with 600 s of grace',
      `State: missed: no ping by ${utc(deadline)}`,
      `Last ping: ${utc(pingedAt)}`,
    ]);
    expect(await page.locator('.graph').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Run now' }).count()).toBe(0);
  });
});
