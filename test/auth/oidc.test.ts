import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  decodeProtectedHeader,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  SignJWT,
  UnsecuredJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOidcVerifier } from '../../hub/src/auth/oidc.js';
import type { TokenVerifier } from '../../hub/src/auth/principal.js';
import { UnauthorizedError, UnavailableError } from '../../hub/src/http/errors.js';
import { freePort } from '../harness/processes.js';
import { pino } from 'pino';
import { createCredentialCipher, generateCredentialKey } from '../../hub/src/crypto/credential-cipher.js';
import { openMemoryDatabase } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrator.js';
import { createApp } from '../../hub/src/server/app.js';
import { createInProcessRunQueue } from '../../hub/src/scheduling/in-process-run-queue.js';
import { createLocalSecretStore } from '../../hub/src/secrets/local-secret-store.js';

const AUDIENCE = 'https://hub.meerkat.test';
const ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const CLIENT_SECRET = 'a-client-secret-long-enough-for-client-credentials';

/** Each registered client gets these extra claims in its access tokens, so each client is one kind of token. */
const CLIENT_CLAIMS: Record<string, Record<string, unknown>> = {
  'probe-runner': { organizationId: 'acme', role: 'service' },
  'acme-viewer': { organizationId: 'acme', role: 'viewer' },
  'no-organization': { role: 'viewer' },
  'no-role': { organizationId: 'acme' },
  'unknown-role': { organizationId: 'acme', role: 'owner' },
};

interface SigningKey {
  kid: string;
  privateJwk: JWK;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

async function createSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateJwk, privateKey, publicKey };
}

function buildProvider(issuer: string, keys: SigningKey[]) {
  return new Provider(issuer, {
    clients: Object.keys(CLIENT_CLAIMS).map((clientId) => ({
      client_id: clientId,
      client_secret: CLIENT_SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    jwks: { keys: keys.map((key) => key.privateJwk) },
    ttl: { ClientCredentials: 600 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => AUDIENCE,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => ({
          audience: resourceIndicator,
          scope: '',
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string | undefined }) =>
      CLIENT_CLAIMS[token.clientId ?? ''],
  });
}

/** A real OpenID Provider on loopback; its keys are swapped by re-creating the provider behind the same socket. */
interface TestIssuer {
  url: string;
  rotateKeys(keys: SigningKey[]): void;
  failJwks(failing: boolean): void;
  issueToken(clientId: string, resource?: string): Promise<string>;
  close(): Promise<void>;
}

async function startIssuer(keys: SigningKey[], port = 0): Promise<TestIssuer> {
  let handle: ReturnType<Provider['callback']> | undefined;
  let jwksFailing = false;
  const server: Server = createServer((req, res) => {
    if (jwksFailing && req.url === '/jwks') return void res.writeHead(503).end();
    void handle?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rotateKeys = (next: SigningKey[]) => void (handle = buildProvider(url, next).callback());
  rotateKeys(keys);
  return {
    url,
    rotateKeys,
    failJwks: (failing) => void (jwksFailing = failing),
    async issueToken(clientId, resource) {
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: CLIENT_SECRET,
      });
      if (resource) body.set('resource', resource);
      const response = await fetch(`${url}/token`, { method: 'POST', body });
      const answer = (await response.json()) as { access_token?: string };
      if (!answer.access_token) {
        throw new Error(`token request answered ${response.status}: ${JSON.stringify(answer)}`);
      }
      return answer.access_token;
    },
    close: () =>
      new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

async function rejectionOf(verifier: TokenVerifier, token: string): Promise<Error> {
  const outcome = await verifier.verify(token).then(
    () => new Error('the token was accepted'),
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  expect(outcome.message).not.toContain(token);
  return outcome;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('OIDC token verification against a real OpenID Provider', () => {
  let keyA: SigningKey;
  let foreignKey: SigningKey;
  let issuer: TestIssuer;
  let verifier: TokenVerifier;

  beforeAll(async () => {
    [keyA, foreignKey] = await Promise.all([createSigningKey('key-a'), createSigningKey('foreign')]);
    issuer = await startIssuer([keyA]);
    verifier = createOidcVerifier({ issuer: issuer.url, audience: AUDIENCE, algorithms: ALGORITHMS });
  });

  afterAll(async () => {
    await issuer?.close();
  });

  function forge(claims: { iss?: string; exp?: number; kid?: string }, key = keyA): Promise<string> {
    return new SignJWT({ organizationId: 'acme', role: 'editor' })
      .setProtectedHeader({ alg: 'RS256', kid: claims.kid ?? key.kid })
      .setIssuer(claims.iss ?? issuer.url)
      .setAudience(AUDIENCE)
      .setSubject('forger')
      .setIssuedAt(nowSeconds() - 600)
      .setExpirationTime(claims.exp ?? nowSeconds() + 300)
      .sign(key.privateKey);
  }

  it('a token issued by the provider is accepted and yields the principal (org, role, subject)', async () => {
    const token = await issuer.issueToken('probe-runner');
    await expect(verifier.verify(token)).resolves.toEqual({
      organizationId: 'acme',
      role: 'service',
      subject: 'probe-runner',
      method: 'oidc',
    });
  });

  // [what is wrong with the token, the message it is refused with, how to mint it]
  const rejections: [string, string, () => Promise<string>][] = [
    ['from another issuer', 'token issuer is not accepted', () => forge({ iss: 'https://impostor.example' })],
    [
      'for another audience',
      'token audience is not accepted',
      () => issuer.issueToken('probe-runner', 'https://elsewhere.example'),
    ],
    ['that has expired', 'token is expired', () => forge({ exp: nowSeconds() - 60 })],
    [
      'with alg none',
      'token algorithm is not accepted',
      () =>
        Promise.resolve(
          new UnsecuredJWT({ organizationId: 'acme', role: 'admin' })
            .setIssuer(issuer.url)
            .setAudience(AUDIENCE)
            .setExpirationTime('5m')
            .encode(),
        ),
    ],
    [
      'signed HS256 with the public key as the secret',
      'token algorithm is not accepted',
      async () =>
        new SignJWT({ organizationId: 'acme', role: 'admin' })
          .setProtectedHeader({ alg: 'HS256', kid: keyA.kid })
          .setIssuer(issuer.url)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(await exportSPKI(keyA.publicKey))),
    ],
    ['with an unknown kid', 'token signing key is not known', () => forge({}, foreignKey)],
    [
      "with the provider's kid but a foreign signature",
      'token signature is invalid',
      () => forge({ kid: keyA.kid }, foreignKey),
    ],
    [
      'without organizationId',
      'token is missing the organizationId claim',
      () => issuer.issueToken('no-organization'),
    ],
    ['without role', 'token is missing the role claim', () => issuer.issueToken('no-role')],
    [
      'with a role outside viewer, editor, admin, service',
      'token role claim must be one of viewer, editor, admin, service',
      () => issuer.issueToken('unknown-role'),
    ],
  ];

  it.each(rejections)('a token %s is refused as unauthorized with "%s"', async (_case, message, mint) => {
    const error = await rejectionOf(verifier, await mint());
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error.message).toBe(message);
  });

  it('a JWKS endpoint that fails gives UnavailableError rather than 401', async () => {
    const freshVerifier = createOidcVerifier({
      issuer: issuer.url,
      audience: AUDIENCE,
      algorithms: ALGORITHMS,
    });
    issuer.failJwks(true);
    try {
      const error = await rejectionOf(freshVerifier, await issuer.issueToken('probe-runner'));
      expect(error).toBeInstanceOf(UnavailableError);
    } finally {
      issuer.failJwks(false);
    }
  });
});

describe('OIDC issuer lifecycle', () => {
  it('a rotated signing key is accepted without restart', async () => {
    const [keyA, keyB] = await Promise.all([createSigningKey('key-a'), createSigningKey('key-b')]);
    const issuer = await startIssuer([keyA]);
    const verifier = createOidcVerifier({ issuer: issuer.url, audience: AUDIENCE, algorithms: ALGORITHMS });
    try {
      await expect(verifier.verify(await issuer.issueToken('probe-runner'))).resolves.toMatchObject({
        role: 'service',
      });

      issuer.rotateKeys([keyB, keyA]);
      // jose refetches the JWKS for an unknown kid at most every 30 s; step past that instead of sleeping.
      vi.setSystemTime(Date.now() + 31_000);
      const rotatedToken = await issuer.issueToken('probe-runner');

      expect(decodeProtectedHeader(rotatedToken).kid).toBe('key-b');
      await expect(verifier.verify(rotatedToken)).resolves.toMatchObject({
        organizationId: 'acme',
        role: 'service',
      });
    } finally {
      vi.useRealTimers();
      await issuer.close();
    }
  });

  it('an unreachable issuer gives UnavailableError, and the same verifier recovers once it is up', async () => {
    const port = await freePort();
    const verifier = createOidcVerifier({
      issuer: `http://127.0.0.1:${port}`,
      audience: AUDIENCE,
      algorithms: ALGORITHMS,
    });

    const error = await rejectionOf(verifier, 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln');
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toBe('identity provider discovery failed');

    const issuer = await startIssuer([await createSigningKey('key-late')], port);
    try {
      await expect(verifier.verify(await issuer.issueToken('probe-runner'))).resolves.toMatchObject({
        subject: 'probe-runner',
      });
    } finally {
      await issuer.close();
    }
  });
});

describe('the hub in oidc mode', () => {
  it('lets a provider token through, answers a bad one with the 401 body and a viewer write with 403', async () => {
    const key = await createSigningKey('key-http');
    const issuer = await startIssuer([key]);
    const db = openMemoryDatabase();
    await migrateToLatest(db);
    const cipher = createCredentialCipher(generateCredentialKey());
    const app = createApp({
      db,
      log: pino({ level: 'silent' }),
      verifier: createOidcVerifier({ issuer: issuer.url, audience: AUDIENCE, algorithms: ALGORITHMS }),
      cipher,
      secrets: createLocalSecretStore({ db, cipher }),
      readiness: [],
      runQueue: createInProcessRunQueue({ log: pino({ level: 'silent' }) }),
    });
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const hub = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const viewerToken = await issuer.issueToken('acme-viewer');
      const read = await fetch(`${hub}/connections`, { headers: { authorization: `Bearer ${viewerToken}` } });
      expect(read.status).toBe(200);

      const write = await fetch(`${hub}/connections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${viewerToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          provider: 'cloud',
          authMethod: 'smtp',
          credentials: { host: 'mail', port: 25 },
        }),
      });
      expect(write.status).toBe(403);

      const wrongAudience = await issuer.issueToken('acme-viewer', 'https://elsewhere.example');
      const refused = await fetch(`${hub}/connections`, {
        headers: { authorization: `Bearer ${wrongAudience}` },
      });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'token audience is not accepted',
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.destroy();
      await issuer.close();
    }
  });
});
