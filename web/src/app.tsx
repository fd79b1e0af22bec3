import { useEffect, useState } from 'preact/hooks';
import { apiData } from './api.js';
import { MaintenancePage } from './pages/maintenance.js';
import { MonitorDetailPage } from './pages/monitor-detail.js';
import { OidcCallbackPage } from './pages/oidc-callback.js';
import { OverviewPage } from './pages/overview.js';
import { RunDetailPage } from './pages/run-detail.js';
import { SignInPage } from './pages/sign-in.js';
import { StatusPagePage } from './pages/status-page.js';
import { Link, navigate, useLocation } from './router.js';
import { forgetToken, rememberReturnPath, storedToken } from './session.js';
import type { PrincipalSummary } from './types.js';

/** The pages that need no token: signing in, and the public status pages. */
function publicPage(path: string) {
  if (path === '/ui/sign-in') return <SignInPage />;
  if (path === '/ui/oidc-callback') return <OidcCallbackPage />;
  const status = /^\/ui\/status\/([^/]+)$/.exec(path);
  if (status) return <StatusPagePage slug={decodeURIComponent(status[1] ?? '')} />;
  return undefined;
}

const SigningIn = () => <p role="status">Signing in…</p>;

/**
 * The pages of a caller with a token. Only the monitor's page waits for `GET /principal` (its "Run now" depends on
 * the role); the others load their data alongside it, as the API checks the token on every request anyway.
 */
function signedInPage(path: string, principal: PrincipalSummary | undefined) {
  const run = /^\/ui\/runs\/([^/]+)$/.exec(path);
  if (run) return <RunDetailPage runId={decodeURIComponent(run[1] ?? '')} />;
  const monitor = /^\/ui\/monitors\/([^/]+)$/.exec(path);
  if (monitor)
    return principal === undefined ? (
      <SigningIn />
    ) : (
      <MonitorDetailPage monitorId={decodeURIComponent(monitor[1] ?? '')} principal={principal} />
    );
  if (path === '/ui/' || path === '/ui') return <OverviewPage />;
  if (path === '/ui/maintenance')
    return principal === undefined ? <SigningIn /> : <MaintenancePage principal={principal} />;
  return (
    <section>
      <h1>Not found</h1>
      <p>
        The console has no page at this address. <Link href="/ui/">Go to the monitors</Link>.
      </p>
    </section>
  );
}

export function App() {
  const url = useLocation();
  const path = url.pathname;
  const [principal, setPrincipal] = useState<PrincipalSummary | undefined>();
  const page = publicPage(path);
  const token = storedToken();

  useEffect(() => {
    if (page !== undefined || principal !== undefined) return;
    if (token === null) {
      rememberReturnPath(path + url.search);
      navigate('/ui/sign-in', true);
      return;
    }
    apiData<PrincipalSummary>('/principal').then(setPrincipal, () => undefined);
  }, [page === undefined, principal, token]);

  const signOut = () => {
    forgetToken();
    setPrincipal(undefined);
    navigate('/ui/sign-in');
  };

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/ui/" class="brand">
          Meerkat
        </Link>
        {principal !== undefined && page === undefined && (
          <nav aria-label="Main">
            <Link href="/ui/">Monitors</Link>
            <Link href="/ui/maintenance">Maintenance</Link>
            <span class="who">
              {principal.organizationId} · {principal.role}
            </span>
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </nav>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {page ?? (token === null ? <SigningIn /> : signedInPage(path, principal))}
      </main>
    </>
  );
}
