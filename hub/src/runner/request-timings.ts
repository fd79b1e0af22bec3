import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Socket } from 'node:net';
import { buildConnector } from 'undici';
import type { StepTimings } from './run-outcome.js';
import { readTlsFacts, type TlsFacts } from './tls-facts.js';

// How timings are taken. A connection's phases are measured by the runner's connector from socket events
// (lookup, connect, secureConnect). Which connection served which request is learned from undici's diagnostics
// channels: `undici:request:create` is published synchronously inside the dispatch, so the probe the step set
// around that call (`RequestProbe.start`) is the one its request reports to; `undici:client:sendHeaders` then
// names the socket. A connection's phases are reported by the first request it serves; a reused pooled connection
// has none. No AsyncLocalStorage: one would turn on Node's promise hooks for every promise of the worker
// (docs/adr/0084).

interface ConnectionTimings {
  startedAt: number;
  lookedUpAt?: number;
  connectedAt?: number;
  secureAt?: number;
  requestsServed: number;
  /** Read once the handshake is done; every request the connection serves reports them. */
  tls?: TlsFacts | undefined;
}

const connectionTimings = new WeakMap<Socket, ConnectionTimings>();
const probeOfRequest = new WeakMap<object, RequestProbe>();
/** The probe of the request being dispatched, for `undici:request:create`; unset outside `RequestProbe.start`. */
let startingProbe: RequestProbe | undefined;

/** What one HTTP step learned about its request while it ran. */
export class RequestProbe {
  readonly startedAt = performance.now();
  headersAt: number | undefined;
  private socketAssigned = false;
  private readonly newConnections: ConnectionTimings[] = [];
  /** The TLS facts of the connection the last request (after redirects, the final one) went over. */
  tls: TlsFacts | undefined;

  /** Calls `start`, which dispatches one undici request synchronously: that request reports to this probe. */
  start<T>(start: () => T): T {
    return startReportingTo(this, start);
  }

  onSocket(socket: Socket): void {
    this.socketAssigned = true;
    const connection = connectionTimings.get(socket);
    this.tls = connection?.tls;
    if (connection !== undefined && connection.requestsServed++ === 0) this.newConnections.push(connection);
  }

  /** For a timeout message: what the request was waiting for when time ran out. */
  phase(): string {
    if (this.headersAt !== undefined) return 'while reading the body';
    return this.socketAssigned ? 'waiting for the response' : 'while connecting';
  }

  timings(): StepTimings {
    const total: StepTimings = { totalMs: roundMs(performance.now() - this.startedAt) };
    if (this.headersAt !== undefined) total.firstByteMs = roundMs(this.headersAt - this.startedAt);
    // After a redirect to another origin, several connections were opened: their phases add up.
    for (const connection of this.newConnections) {
      const { startedAt, lookedUpAt, connectedAt, secureAt } = connection;
      if (lookedUpAt !== undefined) total.dnsMs = addMs(total.dnsMs, lookedUpAt - startedAt);
      if (connectedAt !== undefined)
        total.connectMs = addMs(total.connectMs, connectedAt - (lookedUpAt ?? startedAt));
      if (secureAt !== undefined && connectedAt !== undefined)
        total.tlsMs = addMs(total.tlsMs, secureAt - connectedAt);
    }
    return total;
  }
}

function startReportingTo<T>(probe: RequestProbe, start: () => T): T {
  const outer = startingProbe;
  startingProbe = probe;
  try {
    return start();
  } finally {
    startingProbe = outer;
  }
}

const roundMs = (ms: number) => Math.round(ms * 10) / 10;
const addMs = (sum: number | undefined, ms: number) => roundMs((sum ?? 0) + ms);

/** Both channels publish `{ request, ... }` (undici's DiagnosticsChannel types); Node types messages unknown. */
const hasRequest = (message: unknown): message is { request: object } =>
  typeof message === 'object' &&
  message !== null &&
  'request' in message &&
  typeof message.request === 'object' &&
  message.request !== null;

function onRequestCreated(message: unknown): void {
  const probe = startingProbe;
  if (probe !== undefined && hasRequest(message)) probeOfRequest.set(message.request, probe);
}

function onHeadersSent(message: unknown): void {
  if (hasRequest(message) && 'socket' in message && message.socket instanceof Socket)
    probeOfRequest.get(message.request)?.onSocket(message.socket);
}

let observers = 0;

/** Subscribes to undici's channels while at least one runner is open; returns the release function. */
export function observeUndiciRequests(): () => void {
  if (observers++ === 0) {
    subscribe('undici:request:create', onRequestCreated);
    subscribe('undici:client:sendHeaders', onHeadersSent);
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--observers === 0) {
      unsubscribe('undici:request:create', onRequestCreated);
      unsubscribe('undici:client:sendHeaders', onHeadersSent);
    }
  };
}

type ConnectorCallbackArgs = Parameters<buildConnector.Callback>;

/** undici's own connector, with each new connection's lookup, connect and TLS handshake timed. */
export function buildTimedConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  const connect = buildConnector(options) as unknown as (
    options: buildConnector.Options,
    callback: buildConnector.Callback,
  ) => Socket | undefined;
  return (connectOptions, callback) => {
    const connection: ConnectionTimings = { startedAt: performance.now(), requestsServed: 0 };
    const socket = connect(connectOptions, (...args: ConnectorCallbackArgs) => {
      // undici calls back with only the error when the connection fails.
      if (args[0] === null) {
        // Registered before undici's callback runs, so the request about to be written finds it.
        connection.connectedAt ??= performance.now();
        if ('encrypted' in args[1]) connection.tls = readTlsFacts(args[1]);
        connectionTimings.set(args[1], connection);
      }
      callback(...args);
    });
    socket?.once('lookup', () => (connection.lookedUpAt = performance.now()));
    socket?.once('connect', () => (connection.connectedAt = performance.now()));
    socket?.once('secureConnect', () => (connection.secureAt = performance.now()));
  };
}
