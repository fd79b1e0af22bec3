import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientErrorsWithJson } from './client-errors.js';

export interface ListeningServer {
  /** `http://host:port`, with an IPv6 host in brackets. */
  url: string;
  /** Stops listening and closes the connections as `ListenOptions.closeConnections` says. */
  close: () => Promise<void>;
}

export interface ListenOptions {
  /**
   * `all` (default): close drops every open connection (a scrape or probe in flight is not waited for).
   * `idle`: close drops the idle ones; requests in flight finish, then their connections close.
   */
  closeConnections?: 'all' | 'idle';
}

/**
 * Listens on `host:port` (0 for a free port); rejects when the port cannot be taken. Requests Node's parser
 * refuses get a JSON error body too (client-errors.ts).
 */
export async function listen(
  server: Server,
  port: number,
  host: string,
  options: ListenOptions = {},
): Promise<ListeningServer> {
  answerClientErrorsWithJson(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if (options.closeConnections === 'idle') server.closeIdleConnections();
        else server.closeAllConnections();
      }),
  };
}
