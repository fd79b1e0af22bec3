// A local target that answers each path with a fixed JSON document, for the JSONPath tests.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trackedCloser, type RunningTarget } from './broken-targets.js';

/** `documents` maps a path (`/books`) to the value its answer holds; other paths answer 404. */
export async function startJsonDocumentsTarget(documents: Record<string, unknown>): Promise<RunningTarget> {
  const bodies = new Map(Object.entries(documents).map(([path, value]) => [path, JSON.stringify(value)]));
  const server = createServer((req, res) => {
    const body = bodies.get(new URL(req.url ?? '/', 'http://target').pathname);
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  const close = trackedCloser(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}
