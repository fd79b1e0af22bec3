import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleSettingsOf } from '../../hub/src/console/console-settings.js';
import { startTestHub, type TestHub } from '../harness/hub.js';

describe('the console without a build', () => {
  let hub: TestHub;

  beforeAll(async () => {
    const empty = await mkdtemp(join(tmpdir(), 'meerkat-console-empty-'));
    hub = await startTestHub({
      redisUrl: null,
      console: { signIn: { authMode: 'api-key' }, assetsDir: empty },
    });
  });
  afterAll(() => hub?.close());

  it('answers /ui/ with 503 naming the command that builds it, and the API still works', async () => {
    const page = await hub.request('GET', '/ui/', { as: null });
    expect(page.status).toBe(503);
    expect(await page.json()).toEqual({
      error: 'the console is not built: run `npm run build:console`',
      code: 'unavailable',
    });
    expect((await hub.request('GET', '/principal', { as: 'acmeViewer' })).status).toBe(200);
  });

  it('tells a caller their organization, role and what the role may do', async () => {
    const answer = await hub.request('GET', '/principal', { as: 'acmeEditor' });
    expect(await answer.json()).toEqual({
      data: {
        organizationId: 'acme',
        role: 'editor',
        permissions: ['read', 'monitors:write', 'runs:write', 'secrets:write'],
      },
    });
    expect((await hub.request('GET', '/principal', { as: null })).status).toBe(401);
  });
});

describe('consoleSettingsOf', () => {
  const base = { OIDC_ISSUER: undefined, OIDC_AUDIENCE: undefined, OIDC_CONSOLE_CLIENT_ID: undefined };
  it('signs in with a key in api-key mode, whatever OIDC settings are present', () => {
    expect(consoleSettingsOf({ ...base, AUTH_MODE: 'api-key', OIDC_CONSOLE_SCOPE: 'openid' })).toEqual({
      signIn: { authMode: 'api-key' },
    });
  });

  it('offers the issuer only when the console has a client id of its own', () => {
    const oidc = {
      AUTH_MODE: 'oidc' as const,
      OIDC_ISSUER: 'https://id.example.com',
      OIDC_AUDIENCE: 'https://hub.example.com',
      OIDC_CONSOLE_SCOPE: 'openid profile',
    };
    expect(consoleSettingsOf({ ...oidc, OIDC_CONSOLE_CLIENT_ID: undefined })).toEqual({
      signIn: { authMode: 'oidc' },
    });
    expect(consoleSettingsOf({ ...oidc, OIDC_CONSOLE_CLIENT_ID: 'console' })).toEqual({
      signIn: {
        authMode: 'oidc',
        oidc: {
          issuer: 'https://id.example.com',
          audience: 'https://hub.example.com',
          clientId: 'console',
          scope: 'openid profile',
        },
      },
    });
  });
});
