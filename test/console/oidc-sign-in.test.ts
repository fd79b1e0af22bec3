import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcVerifier } from '../../hub/src/auth/oidc.js';
import { createCredentialCipher, generateCredentialKey } from '../../hub/src/crypto/credential-cipher.js';
import { openMemoryDatabase } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrator.js';
import { createInProcessRunQueue } from '../../hub/src/scheduling/in-process-run-queue.js';
import { createLocalSecretStore } from '../../hub/src/secrets/local-secret-store.js';
import { createApp } from '../../hub/src/server/app.js';
import { freePort } from '../harness/processes.js';
import { buildConsole, launchBrowser, screenshot, seriousViolations } from './console-browser.js';

const AUDIENCE = 'https://hub.meerkat.test';
const CLIENT_ID = 'meerkat-console';

/** The suite's oidc-provider issuer, with the console as a public client that must use PKCE. */
async function startIssuer(hubUrl: string) {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const provider = new Provider(url, {
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: [`${hubUrl}/ui/oidc-callback`],
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'console', alg: 'RS256', use: 'sig' }] },
    pkce: { required: () => true },
    clientBasedCORS: (_ctx: unknown, origin: string) => origin === hubUrl,
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    features: {
      devInteractions: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          audience: AUDIENCE,
          scope: 'openid',
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: () => ({ organizationId: 'acme', role: 'editor' }),
  });
  const handle = provider.callback();
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('signing in to the console with OIDC (authorization code with PKCE)', () => {
  let hubServer: Server;
  let hubUrl: string;
  let issuer: Awaited<ReturnType<typeof startIssuer>>;
  let browser: Browser;

  beforeAll(async () => {
    const assetsDir = await buildConsole();
    const hubPort = await freePort();
    hubUrl = `http://127.0.0.1:${hubPort}`;
    issuer = await startIssuer(hubUrl);
    const db = openMemoryDatabase();
    await migrateToLatest(db);
    const cipher = createCredentialCipher(generateCredentialKey());
    const log = pino({ level: 'silent' });
    const app = createApp({
      db,
      log,
      verifier: createOidcVerifier({ issuer: issuer.url, audience: AUDIENCE, algorithms: ['RS256'] }),
      cipher,
      secrets: createLocalSecretStore({ db, cipher }),
      readiness: [],
      runQueue: createInProcessRunQueue({ log }),
      console: {
        assetsDir,
        signIn: {
          authMode: 'oidc',
          oidc: { issuer: issuer.url, clientId: CLIENT_ID, audience: AUDIENCE, scope: 'openid' },
        },
      },
    });
    hubServer = createServer(app);
    await new Promise<void>((resolve) => hubServer.listen(hubPort, '127.0.0.1', resolve));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (hubServer ? hubServer.close(() => resolve()) : resolve()));
    await issuer?.close();
  });

  it('sends the user to the issuer and back, and the API takes the token it got', async () => {
    const page = await browser.newPage();
    await page.goto(`${hubUrl}/ui/`);
    await page.waitForURL(/\/ui\/sign-in$/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in-oidc');
    const authorizeRequest = page.waitForRequest((r) => r.url().startsWith(`${issuer.url}/auth?`));
    const tokenRequest = page.waitForRequest((r) => r.url() === `${issuer.url}/token`);
    await page.getByRole('button', { name: `Sign in with 127.0.0.1:${new URL(issuer.url).port}` }).click();
    const authorize = new URL((await authorizeRequest).url()).searchParams;
    expect(authorize.get('code_challenge_method')).toBe('S256');
    expect(authorize.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.get('resource')).toBe(AUDIENCE);
    await page.locator('input[name="login"]').fill('ada');
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click(); // the consent prompt
    const token = new URLSearchParams((await tokenRequest).postData() ?? '');
    expect(token.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.waitForURL((url) => url.origin === hubUrl && url.pathname === '/ui/');
    await page.locator('.who').waitFor();
    expect(await page.locator('.who').textContent()).toBe('acme · editor');
    await page.locator('table.overview caption').waitFor();
    expect(await page.locator('table.overview caption').textContent()).toBe(
      '0 of 0 monitors, figures over 24h',
    );
  });
});
