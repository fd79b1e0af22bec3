import type { Dispatcher } from 'undici';
import { dispatchRequest, type DispatchedResponse } from './dispatched-request.js';
import type { RequestTarget } from './request-target.js';
import { MAX_REDIRECTS } from './run-outcome.js';
import { describeError, RedirectError } from './step-errors.js';

// The runner follows redirects itself rather than through undici's redirect interceptor, which drops only
// Authorization and Cookie on a change of origin: a header holding a `$secret` would reach whatever origin the
// target redirects to. Every hop is a new `request` on the same Agent, so its connection passes the egress policy.

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Never sent to another origin, whatever the node lists. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);
/** Carry no credential and go anywhere in a browser too: the CORS-safelisted request headers and the UA. */
const ALWAYS_SAFE_HEADERS = new Set([
  'accept',
  'accept-language',
  'content-language',
  'content-type',
  'user-agent',
]);
/** Describe a body, so they go with it when a redirect turns the request into a GET (Fetch standard). */
const BODY_HEADERS = new Set(['content-type', 'content-encoding', 'content-language', 'content-location']);

export interface RedirectHop {
  status: number;
  url: string;
}

export interface RedirectOptions {
  dispatcher: Dispatcher;
  signal: AbortSignal;
  /** `follow_redirects` of the node; without it the first answer is the answer. */
  follow: boolean;
  /** Lower-case names the node lists in `redirect_safe_headers`. */
  safeHeaders: ReadonlySet<string>;
  /** Told each redirect as it is followed. */
  onRedirect(hop: RedirectHop): void;
  /** Makes each hop's request, `start` dispatching it synchronously (request-timings.ts: the step's probe). */
  startRequest<T>(start: () => T): T;
}

interface Outgoing {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A hop after the first failed; the message says which, the cause keeps what classifies it. */
class RedirectHopError extends Error {
  constructor(redirects: number, hop: Outgoing, cause: unknown) {
    super(`after ${redirects} redirect(s), ${hop.method} ${hop.url}: ${describeError(cause)}`, { cause });
    this.name = new.target.name;
  }
}

function keptOnOriginChange(name: string, target: RequestTarget, options: RedirectOptions): boolean {
  const lower = name.toLowerCase();
  if (CREDENTIAL_HEADERS.has(lower) || target.secretHeaders.has(lower)) return false;
  return ALWAYS_SAFE_HEADERS.has(lower) || options.safeHeaders.has(lower);
}

const keepHeaders = (headers: Record<string, string>, keep: (name: string) => boolean) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => keep(name)));

/**
 * The request a redirect answer asks for. As browsers do: a 303 becomes a GET (a HEAD stays a HEAD), and so does
 * a POST answered 301 or 302; 307 and 308 repeat the method and body. Headers dropped on a change of origin stay
 * dropped for the rest of the chain, even if it comes back.
 */
function nextRequest(
  current: Outgoing,
  status: number,
  next: URL,
  target: RequestTarget,
  options: RedirectOptions,
): Outgoing {
  const toGet =
    (status === 303 && current.method !== 'HEAD') ||
    ((status === 301 || status === 302) && current.method === 'POST');
  let headers = current.headers;
  if (new URL(current.url).origin !== next.origin)
    headers = keepHeaders(headers, (name) => keptOnOriginChange(name, target, options));
  if (toGet) headers = keepHeaders(headers, (name) => !BODY_HEADERS.has(name.toLowerCase()));
  return {
    url: next.href,
    method: toGet ? 'GET' : current.method,
    headers,
    body: toGet ? undefined : current.body,
  };
}

function locationOf(response: DispatchedResponse): string | undefined {
  const location = response.headers.location;
  return Array.isArray(location) ? location[0] : location;
}

function resolveLocation(location: string, from: string, status: number): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new RedirectError(`answered ${status} with a Location that is not a URL: ${location}`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    throw new RedirectError(`answered ${status} with a redirect that is not http or https: ${next.href}`);
  return next;
}

async function send(hop: Outgoing, redirects: number, options: RedirectOptions) {
  try {
    return await options.startRequest(() =>
      dispatchRequest(options.dispatcher, {
        url: hop.url,
        method: hop.method,
        headers: hop.headers,
        body: hop.body,
        signal: options.signal,
      }),
    );
  } catch (error) {
    // The run's end and the request's timeout speak for themselves.
    if (redirects === 0 || options.signal.aborted) throw error;
    throw new RedirectHopError(redirects, hop, error);
  }
}

/** Sends the request and, when the node asks, follows its redirects up to MAX_REDIRECTS; resolves the last answer. */
export async function sendFollowingRedirects(
  target: RequestTarget,
  method: string,
  options: RedirectOptions,
): Promise<DispatchedResponse> {
  let current: Outgoing = { url: target.url, method, headers: target.headers, body: target.body };
  for (let redirects = 0; ; redirects += 1) {
    const response = await send(current, redirects, options);
    const location = locationOf(response);
    if (!options.follow || !REDIRECT_STATUSES.has(response.statusCode) || location === undefined)
      return response;
    await response.body.dump();
    const next = resolveLocation(location, current.url, response.statusCode);
    if (redirects === MAX_REDIRECTS) {
      throw new RedirectError(
        `more than ${MAX_REDIRECTS} redirects (the limit); the last answered ${response.statusCode} to ${next.href}`,
      );
    }
    options.onRedirect({ status: response.statusCode, url: next.href });
    current = nextRequest(current, response.statusCode, next, target, options);
  }
}
