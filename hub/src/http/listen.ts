import type { Server } from 'node:http';
import { answerClientErrorsWithJson } from './client-errors.js';
import { isListenFailure, PortUnavailableError } from './port-unavailable-error.js';

export interface ListeningServer {
  /** `http://host:port`, with an IPv6 host in brackets. */
  url: string;
  /** Stops listening and closes the connections as `ListenOptions.closeConnections` says. */
  close: () => Promise<void>;
}

export interface ListenOptions {
  /**
   * `all` (default): close drops every open connection (a scrape or probe in flight is not waited for).
   * `idle`: close drops the idle ones at once; every response from then on carries `Connection: close`, so a
   * busy keep-alive connection closes after the response it is serving; what is still open after `drainMs` is
   * dropped.
   */
  closeConnections?: 'all' | 'idle';
  /** With `idle`: how long in-flight requests get before their connections are dropped (default 10 s). */
  drainMs?: number;
  /** The setting the port comes from, named when the port cannot be taken (PortUnavailableError). */
  setting?: string;
}

const DEFAULT_DRAIN_MS = 10_000;

/**
 * Listens on `host:port` (0 for a free port); rejects when the port cannot be taken (a PortUnavailableError when
 * the address is in use, privileged or not this machine's). Requests Node's parser
 * refuses get a JSON error body too (client-errors.ts).
 */
export async function listen(
  server: Server,
  port: number,
  host: string,
  options: ListenOptions = {},
): Promise<ListeningServer> {
  answerClientErrorsWithJson(server);
  let closing = false;
  // First of the request listeners, so the header is set before the app can answer.
  server.prependListener('request', (_req, res) => {
    if (closing) res.setHeader('Connection', 'close');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(isListenFailure(error) ? new PortUnavailableError(host, port, options.setting, error) : error),
    );
    server.listen(port, host, () => resolve());
  });
  // A string for a pipe or socket path, null before listening: neither after listening on a TCP port.
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error(`listening on ${host}:${port} gave no TCP address`);
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        const idleOnly = options.closeConnections === 'idle';
        const drain = idleOnly
          ? setTimeout(() => server.closeAllConnections(), options.drainMs ?? DEFAULT_DRAIN_MS)
          : undefined;
        drain?.unref();
        server.close(() => {
          clearTimeout(drain);
          resolve();
        });
        if (idleOnly) server.closeIdleConnections();
        else server.closeAllConnections();
      }),
  };
}
