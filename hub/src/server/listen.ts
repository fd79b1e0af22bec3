import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningServer {
  /** `http://host:port`, with an IPv6 host in brackets. */
  url: string;
  /** Stops listening and drops open connections (a scrape or probe in flight is not waited for). */
  close: () => Promise<void>;
}

/** Listens on `host:port` (0 for a free port); rejects when the port cannot be taken. */
export async function listen(server: Server, port: number, host: string): Promise<ListeningServer> {
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
        server.closeAllConnections();
      }),
  };
}
