// OIDC authorization code with PKCE (RFC 7636) for a public client: the console holds no client secret, the
// verifier never leaves this tab's sessionStorage, and `state` ties the callback to the request this tab made.
import type { SignInConfig } from './session.js';

type OidcConfig = NonNullable<SignInConfig['oidc']>;
const PENDING_KEY = 'meerkat.oidc';

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomText = () => base64url(crypto.getRandomValues(new Uint8Array(32)));
const redirectUri = () => `${location.origin}/ui/oidc-callback`;

async function discover(issuer: string): Promise<Discovery> {
  const res = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  if (!res.ok) throw new Error(`the sign-in provider did not answer (${res.status})`);
  return (await res.json()) as Discovery;
}

/** Sends the browser to the issuer's authorization endpoint. */
export async function startOidcSignIn(oidc: OidcConfig): Promise<void> {
  const { authorization_endpoint } = await discover(oidc.issuer);
  const verifier = randomText();
  const state = randomText();
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state }));
  const url = new URL(authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: oidc.clientId,
    redirect_uri: redirectUri(),
    scope: oidc.scope,
    state,
    code_challenge: base64url(digest),
    code_challenge_method: 'S256',
    // The access token must name the hub as its audience (RFC 8707), or the hub refuses it.
    resource: oidc.audience,
  }).toString();
  location.assign(url.toString());
}

/** Trades the callback's code for an access token; throws when the callback is not the answer to our request. */
export async function finishOidcSignIn(oidc: OidcConfig, callback: URL): Promise<string> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as {
    verifier: string;
    state: string;
  } | null;
  sessionStorage.removeItem(PENDING_KEY);
  const error = callback.searchParams.get('error');
  if (error !== null) throw new Error(callback.searchParams.get('error_description') ?? error);
  const code = callback.searchParams.get('code');
  if (pending === null || code === null || callback.searchParams.get('state') !== pending.state)
    throw new Error('this sign-in answer does not belong to a sign-in started here; sign in again');
  const { token_endpoint } = await discover(oidc.issuer);
  const res = await fetch(token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      client_id: oidc.clientId,
      code_verifier: pending.verifier,
      resource: oidc.audience,
    }).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; error_description?: string };
  if (!res.ok || body.access_token === undefined)
    throw new Error(body.error_description ?? `the sign-in provider refused the code (${res.status})`);
  return body.access_token;
}
