import type { Certificate, DetailedPeerCertificate, TLSSocket } from 'node:tls';

/** What a run records about the TLS connection a step used: the facts its certificate assertions read. */
export interface TlsFacts {
  /** The negotiated protocol, e.g. `TLSv1.3`. */
  version: string;
  /** Whether the chain verified against the trusted roots and the name matched. */
  verified: boolean;
  /** Why it did not verify (OpenSSL's code, e.g. `CERT_HAS_EXPIRED`), when it did not. */
  verifyError?: string;
  /** The leaf certificate's subject and issuer, as `CN=..., O=...`. */
  subject: string;
  issuer: string;
  /** The leaf's subjectAltName entries, e.g. `DNS:api.example.com`. */
  subjectAltNames: string[];
  /** The leaf's notAfter, ISO. */
  leafNotAfter: string;
  /** The earliest notAfter of the chain the peer presented (leaf included), ISO, and whose it is. */
  earliestNotAfter: string;
  earliestNotAfterSubject: string;
}

/** Certificates in a chain a run looks at: a longer one is a mistake or a hostile peer. */
const MAX_CHAIN = 10;

function distinguishedName(name: Certificate | undefined): string {
  if (name === undefined) return '';
  return Object.entries(name)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : String(value)}`)
    .join(', ');
}

const isoOf = (validTo: string) => new Date(validTo).toISOString();

/**
 * The facts of a connected TLS socket, or undefined when it has no peer certificate. The chain is walked from
 * the leaf through `issuerCertificate` until it ends or loops on a self-signed root.
 */
export function readTlsFacts(socket: TLSSocket): TlsFacts | undefined {
  // An empty object when the peer sent no certificate.
  const leaf: DetailedPeerCertificate = socket.getPeerCertificate(true);
  if (typeof leaf.valid_to !== 'string') return undefined;
  let earliest: DetailedPeerCertificate = leaf;
  let current: DetailedPeerCertificate = leaf;
  for (let depth = 0; depth < MAX_CHAIN; depth += 1) {
    // Typed as always there, but absent past the last certificate the peer sent.
    const next: DetailedPeerCertificate | undefined = current.issuerCertificate;
    if (next === undefined || next === current || next.valid_to === undefined) break;
    if (Date.parse(next.valid_to) < Date.parse(earliest.valid_to)) earliest = next;
    current = next;
  }
  const facts: TlsFacts = {
    version: socket.getProtocol() ?? 'unknown',
    verified: socket.authorized,
    subject: distinguishedName(leaf.subject),
    issuer: distinguishedName(leaf.issuer),
    subjectAltNames: (leaf.subjectaltname ?? '')
      .split(', ')
      .filter((entry) => entry !== '')
      .slice(0, 100),
    leafNotAfter: isoOf(leaf.valid_to),
    earliestNotAfter: isoOf(earliest.valid_to),
    earliestNotAfterSubject: distinguishedName(earliest.subject),
  };
  // Typed as an Error; Node sets the OpenSSL code, a string, and nothing when it verified.
  const reason: Error | string | null | undefined = socket.authorizationError;
  if (!socket.authorized && reason !== null && reason !== undefined)
    facts.verifyError = typeof reason === 'string' ? reason : reason.message;
  return facts;
}

/** `TLSv1.2` as 1.2, for a numeric `tlsVersion` assertion; undefined for anything else. */
export function tlsVersionNumber(version: string): number | undefined {
  const match = /^TLSv(\d)(?:\.(\d))?$/.exec(version);
  if (match === null) return undefined;
  return Number(`${match[1]}.${match[2] ?? '0'}`);
}

/** Days from `now` to the earliest notAfter of the chain, to a hundredth: negative once it has passed. */
export function daysUntilExpiry(facts: TlsFacts, now: Date): number {
  return Math.round((Date.parse(facts.earliestNotAfter) - now.getTime()) / 864_000) / 100;
}
