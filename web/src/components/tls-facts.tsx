import { when } from '../format.js';
import type { StepResult } from '../types.js';

type TlsFacts = NonNullable<StepResult['tls']>;

const DAY_MS = 86_400_000;

/** "in 41 days" or "3 days ago", from `now` (the page's load), rounded down to whole days. */
function relativeDays(iso: string, now: number): string {
  const days = Math.floor((Date.parse(iso) - now) / DAY_MS);
  if (days >= 0) return `in ${days} day${days === 1 ? '' : 's'}`;
  return `expired ${-days} day${days === -1 ? '' : 's'} ago`;
}

/**
 * The certificate and protocol of the TLS connection a step used, as the runner recorded them (the facts its
 * `tlsCertificate*` assertions read): whether the chain verified and why not, the leaf's names and issuer, and the
 * earliest expiry in the chain, the one that breaks the connection first.
 */
export function TlsFactsPanel({ tls, now, labelledBy }: { tls: TlsFacts; now: number; labelledBy: string }) {
  return (
    <dl class="facts tls-facts" aria-labelledby={labelledBy}>
      <dt>TLS</dt>
      <dd>{tls.version}</dd>
      <dt>Chain</dt>
      <dd class={tls.verified ? 'verified' : 'error'}>
        {tls.verified
          ? 'verified'
          : `not verified${tls.verifyError === undefined ? '' : `: ${tls.verifyError}`}`}
      </dd>
      <dt>Subject</dt>
      <dd>
        <code>{tls.subject}</code>
      </dd>
      <dt>Names</dt>
      <dd>{tls.subjectAltNames.length === 0 ? '—' : <code>{tls.subjectAltNames.join(', ')}</code>}</dd>
      <dt>Issuer</dt>
      <dd>
        <code>{tls.issuer}</code>
      </dd>
      <dt>Leaf expires</dt>
      <dd>
        {when(tls.leafNotAfter)} ({relativeDays(tls.leafNotAfter, now)})
      </dd>
      <dt>Chain expires</dt>
      <dd>
        {when(tls.earliestNotAfter)} ({relativeDays(tls.earliestNotAfter, now)}),{' '}
        <code>{tls.earliestNotAfterSubject}</code>
      </dd>
    </dl>
  );
}
