import { useEffect, useState } from 'preact/hooks';
import { finishOidcSignIn } from '../oidc.js';
import { Link } from '../router.js';
import { signInConfig, storeToken, takeReturnPath } from '../session.js';

/** Where the identity provider sends the browser back with a code. */
export function OidcCallbackPage() {
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    const callback = new URL(location.href);
    signInConfig()
      .then(async (config) => {
        if (config.oidc === undefined) throw new Error('this hub does not sign in with OIDC');
        storeToken(await finishOidcSignIn(config.oidc, callback));
        location.replace(takeReturnPath());
      })
      .catch((caught: unknown) => setError(caught instanceof Error ? caught.message : String(caught)));
  }, []);
  return error === undefined ? (
    <p role="status">Signing in…</p>
  ) : (
    <section>
      <h1>Sign-in failed</h1>
      <p role="alert">{error}</p>
      <Link href="/ui/sign-in">Try again</Link>
    </section>
  );
}
