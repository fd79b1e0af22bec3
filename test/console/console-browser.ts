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
  // Vite builds for production only when NODE_ENV says so, and vitest sets it to `test`: the pages would then be
  // measured with Preact's debug hooks and development JSX, 30 % more code that the shipped build leaves out.
  const testEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: join(root, 'web/vite.config.ts'),
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    if (testEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = testEnv;
  }
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

/**
 * What performance.measure says between two marks (or navigation start), in milliseconds. The pages set their
 * closing mark in an effect, which runs after the next frame: it may still be missing when what the test waited
 * for is already in the document.
 */
export async function measured(page: Page, from: string | undefined, to: string): Promise<number> {
  await page.waitForFunction((end) => performance.getEntriesByName(end).length > 0, to);
  return page.evaluate(
    ([start, end]) =>
      start === ''
        ? (performance.getEntriesByName(end as string)[0]?.startTime ?? NaN)
        : performance.measure('m', start, end).duration,
    [from ?? '', to],
  );
}
