import { useState } from 'preact/hooks';
import { ApiError, apiData } from '../api.js';
import { useLoad } from '../load.js';
import { startOidcSignIn } from '../oidc.js';
import { navigate } from '../router.js';
import { forgetToken, signInConfig, storeToken, takeReturnPath } from '../session.js';
import type { PrincipalSummary } from '../types.js';

/** An API key pasted once per session, or the organization's sign-in provider, as the hub's AUTH_MODE says. */
export function SignInPage() {
  const [config] = useLoad(signInConfig, []);
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const useKey = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    storeToken(key.trim());
    try {
      await apiData<PrincipalSummary>('/principal');
      // A full load, so the header shows who signed in.
      location.assign(takeReturnPath());
    } catch (caught) {
      forgetToken();
      navigate('/ui/sign-in', true);
      setError(
        caught instanceof ApiError && caught.status === 401 ? 'The hub refused this key.' : String(caught),
      );
      setBusy(false);
    }
  };
  const useProvider = (oidc: NonNullable<Awaited<ReturnType<typeof signInConfig>>['oidc']>) => {
    setBusy(true);
    startOidcSignIn(oidc).catch((caught: unknown) => {
      setError(String(caught));
      setBusy(false);
    });
  };

  if (config.state === 'loading') return <p role="status">Loading…</p>;
  if (config.state === 'failed') return <p role="alert">The hub did not answer: {config.error.message}</p>;
  const { oidc } = config.data;
  return (
    <section class="sign-in">
      <h1>Sign in to Meerkat</h1>
      {config.data.authMode === 'oidc' && oidc === undefined && (
        <p role="alert">
          This hub signs in with OIDC, but the console has no client at the issuer: its operator sets
          OIDC_CONSOLE_CLIENT_ID.
        </p>
      )}
      {config.data.authMode === 'oidc' ? (
        oidc !== undefined && (
          <>
            <p>This hub signs you in with your organization’s identity provider.</p>
            <button type="button" class="primary" disabled={busy} onClick={() => useProvider(oidc)}>
              Sign in with {new URL(oidc.issuer).host}
            </button>
          </>
        )
      ) : (
        <form onSubmit={(event) => void useKey(event)}>
          <p>Enter an API key. It is kept in this browser tab only, until you close it or sign out.</p>
          <label for="api-key">API key</label>
          <input
            id="api-key"
            type="password"
            autocomplete="off"
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
          <button type="submit" class="primary" disabled={busy || key.trim() === ''}>
            Sign in
          </button>
        </form>
      )}
      {error !== undefined && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
