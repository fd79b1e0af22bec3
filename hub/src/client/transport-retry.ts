// What the hub client does when a request never got its answer (docs/operations.md, "The hub client and dropped
// connections"): the connection was refused, reset or closed under it. A kept-alive connection the hub closes just as
// the client sends on it is the usual one; under load a client whose timers run late reuses a socket past the hub's
// idle timeout. Such a request is sent again, with a short backoff, when sending it twice does what once does.
import { createBackoff, type BackoffPolicy } from '../system/backoff.js';

/**
 * `repeatable`: the request may have reached the hub and be sent again (GET, PUT, DELETE; a POST that writes by id
 * or only reads). `unsent-only`: sent again only when it cannot have reached the hub (the connection was refused),
 * because a second one could do its work twice (a POST that creates, triggers or mints).
 */
export type RetryWhen = 'repeatable' | 'unsent-only';

/** Failures in a row a request is sent again after: about 1.5 s of backoff in all. */
const MAX_RETRIES = 4;
const BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 1_000, jitter: 'equal' };

/** Codes of a connection that never carried the request: nothing reached the hub. */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN']);
/** Codes of a connection lost under the request: the hub may have received it, and answered nothing. */
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** The transport code of a failed fetch (undici puts it on the error's cause), if it is one. */
function transportCode(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  for (const candidate of [cause, error]) {
    if (typeof candidate !== 'object' || candidate === null || !('code' in candidate)) continue;
    const { code } = candidate;
    if (typeof code === 'string' && (UNSENT_CODES.has(code) || LOST_CODES.has(code))) return code;
  }
  return undefined;
}

/** A request that got no answer: the connection to the hub failed. Names the request and cause, never the key. */
export class HubTransportError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly code: string,
    readonly attempts: number,
    retried: boolean,
    options: { cause: unknown },
  ) {
    const why = UNSENT_CODES.has(code)
      ? 'the connection to the hub was refused'
      : 'the connection to the hub was lost before it answered';
    const after = retried
      ? `after ${attempts} attempts`
      : 'not sent again: the hub may have done it, and doing it twice is not the same as once';
    super(`${method} ${path}: ${why} (${code}), ${after}`, options);
    this.name = new.target.name;
  }
}

/**
 * Runs `send` (one fetch) until it answers, sending it again after a transport failure as `when` allows, at most
 * MAX_RETRIES times; stops early once `signal` (the call's timeout) has fired.
 */
export async function sendWithRetries(
  request: { method: string; url: URL; when: RetryWhen; signal?: AbortSignal | undefined },
  send: () => Promise<Response>,
): Promise<Response> {
  const backoff = createBackoff(BACKOFF);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      const code = transportCode(error);
      if (code === undefined) throw error;
      const allowed = request.when === 'repeatable' || UNSENT_CODES.has(code);
      if (!allowed || attempt > MAX_RETRIES || request.signal?.aborted === true)
        throw new HubTransportError(request.method, request.url.pathname, code, attempt, allowed, {
          cause: error,
        });
      await new Promise((resolve) => setTimeout(resolve, backoff.next()));
    }
  }
}
