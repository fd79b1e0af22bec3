// The console's browser tests: the console built once per test file into a temporary folder, Debian's Chromium
// driven by playwright-core, axe-core injected into each page, and screenshots kept under test/console/screenshots/
// (ignored by git; docs/console.md shows copies).
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';

const root = fileURLToPath(new URL('../..', import.meta.url));
const screenshotDir = join(root, 'test/console/screenshots');

/** Builds the console as `npm run build:console` does, into a folder of this test file's own. */
export async function buildConsole(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'meerkat-console-'));
  await build({
    configFile: join(root, 'web/vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    // No sandbox: CI runs as root in a container. No background networking: the tests talk to loopback only.
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over the DevTools protocol, which the page's Content-Security-Policy (no inline scripts) allows.
  await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map((n) => ({ target: n.target })),
    }));
}

/** `fullPage: false` keeps a long page (the overview's hundred rows) to the viewport. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  await mkdir(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}

/** Signs in with an API key through the sign-in form, as a person would, and waits for `path` to show. */
export async function signInWithKey(page: Page, hubUrl: string, key: string, path = '/ui/'): Promise<void> {
  await page.goto(`${hubUrl}${path}`);
  await page.waitForURL(/\/ui\/sign-in$/);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === path);
}

/** What performance.measure says between two marks (or navigation start), in milliseconds. */
export async function measured(page: Page, from: string | undefined, to: string): Promise<number> {
  return page.evaluate(
    ([start, end]) =>
      start === ''
        ? (performance.getEntriesByName(end as string)[0]?.startTime ?? NaN)
        : performance.measure('m', start, end).duration,
    [from ?? '', to],
  );
}
