import { abortReason } from './step-deadline.js';
import { isIP, type Socket } from 'node:net';
import { connect as connectTls, rootCertificates, type TLSSocket } from 'node:tls';
import { connectUnderEgress } from '../egress/egress-socket.js';
import type { StepTimings } from './run-outcome.js';
import { readTlsFacts, type TlsFacts } from './tls-facts.js';

/** Where a TCP, DNS-over-TCP or gRPC step connects, and how it speaks TLS there. */
export interface ConnectionTarget {
  host: string;
  port: number;
  tls?: {
    /** The name sent as SNI and checked against the certificate; default `host`. */
    serverName?: string | undefined;
    verify: boolean;
    /** ALPN protocols to offer, e.g. `h2` for gRPC. */
    alpn?: string[];
  };
}

/** What a step's connection settings need from the runner. */
export interface ConnectionSettings {
  egress: Parameters<typeof connectUnderEgress>[0];
  /** PEM certificates trusted besides Node's bundled roots. */
  extraCaCertificates: readonly string[] | undefined;
}

export interface OpenedConnection {
  socket: Socket | TLSSocket;
  timings: Pick<StepTimings, 'dnsMs' | 'connectMs' | 'tlsMs'>;
  tls?: TlsFacts | undefined;
}

const roundMs = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Resolves once `socket` emitted `event`; rejects on its error or when `signal` aborts (the socket is destroyed
 * with the signal's reason, so the caller sees why).
 */
export function whenSocket(socket: Socket, event: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      socket.off(event, onEvent);
      socket.off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const onEvent = () => {
      cleanup();
      resolve();
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onAbort = () => {
      cleanup();
      socket.destroy();
      reject(abortReason(signal));
    };
    if (signal.aborted) return onAbort();
    socket.once(event, onEvent);
    socket.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Connects under the egress policy (every address the name resolves to is judged) and, when asked, completes a
 * TLS handshake on that socket, timing each phase. A certificate that does not verify fails the handshake unless
 * `verify` is false; either way the facts of a completed handshake are returned. On failure the socket is gone.
 */
export async function openConnection(
  target: ConnectionTarget,
  settings: ConnectionSettings,
  signal: AbortSignal,
): Promise<OpenedConnection> {
  const started = performance.now();
  let lookedUpAt: number | undefined;
  const raw = connectUnderEgress(settings.egress, target.host, target.port);
  raw.once('lookup', () => (lookedUpAt = performance.now()));
  try {
    await whenSocket(raw, 'connect', signal);
  } catch (error) {
    raw.destroy();
    throw error;
  }
  const connectedAt = performance.now();
  const timings: OpenedConnection['timings'] = {
    connectMs: roundMs(connectedAt - (lookedUpAt ?? started)),
  };
  if (lookedUpAt !== undefined) timings.dnsMs = roundMs(lookedUpAt - started);
  if (target.tls === undefined) return { socket: raw, timings };

  const serverName = target.tls.serverName ?? target.host;
  const secure = connectTls({
    socket: raw,
    host: serverName,
    // SNI carries names only (RFC 6066); an address is still checked against the certificate's IP entries.
    ...(isIP(serverName) === 0 ? { servername: serverName } : {}),
    rejectUnauthorized: target.tls.verify,
    ...(settings.extraCaCertificates === undefined
      ? {}
      : { ca: [...rootCertificates, ...settings.extraCaCertificates] }),
    ...(target.tls.alpn === undefined ? {} : { ALPNProtocols: target.tls.alpn }),
  });
  try {
    await whenSocket(secure, 'secureConnect', signal);
  } catch (error) {
    secure.destroy();
    throw error;
  }
  timings.tlsMs = roundMs(performance.now() - connectedAt);
  return { socket: secure, timings, tls: readTlsFacts(secure) };
}
