// The monitored service of the fault suite: `GET /hit/<monitorId>?ms=N` answers 200 after N ms (default 0),
// and every request is counted with when it arrived and whether a whole response went out.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TargetHit } from './slot-accounting.js';

export interface CountingTarget {
  url: string;
  hits: TargetHit[];
  /** Requests that arrived and have neither been answered nor lost their connection. */
  inFlight(): number;
  close(): Promise<void>;
}

export async function startCountingTarget(): Promise<CountingTarget> {
  const hits: TargetHit[] = [];
  let open = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://target');
    const hit: TargetHit = { monitorId: url.pathname.replace(/^\/hit\//, ''), arrivedAt: Date.now() };
    hits.push(hit);
    open += 1;
    let settled = false;
    const settle = () => {
      if (!settled) open -= 1;
      settled = true;
    };
    // A client that went away (a killed worker) never gets its answer: the hit stays unanswered.
    res.once('close', () => {
      settle();
      clearTimeout(timer);
    });
    const timer = setTimeout(
      () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}', () => {
          hit.answeredAt = Date.now();
          settle();
        });
      },
      Number(url.searchParams.get('ms') ?? 0),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    inFlight: () => open,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
