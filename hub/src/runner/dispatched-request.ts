import { errors, type Dispatcher } from 'undici';
import { abortReason } from './step-deadline.js';
import { ResponseBodyError } from './step-errors.js';

/** Header names in lower case; a repeated header's values in an array (undici's `parseHeaders`). */
type IncomingHttpHeaders = Dispatcher.ResponseData['headers'];

// One HTTP request through `dispatcher.dispatch` with a handler that keeps the body's chunks, instead of undici's
// `request()`, which makes a handler (an AsyncResource), a Readable body stream and its async iterator's
// promises: 1.15-1.4x the client's CPU of this a small answer on loopback (docs/adr/0088). What a caller
// sees is what `request()` gave: the status and headers as soon as they are known, then the body, or the error
// that ended the request (the signal's reason when it aborted it).

/** What undici's `Readable.dump()` reads of a body it throws away before closing the connection instead. */
const DUMP_LIMIT_BYTES = 128 * 1024;

export interface OutgoingRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
}

/** A response whose status and headers came; its body is still coming, or came, or failed. */
export interface DispatchedResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: ResponseBody;
}

/** The body of a dispatched response: read it (within a size limit) or throw it away, once. */
export interface ResponseBody {
  /**
   * The whole body, failing with a ResponseBodyError as soon as it is known to be over `maxBytes` (from
   * content-length, or when the count passes it); the rest is then not read.
   */
  read(maxBytes: number): Promise<Buffer>;
  /** Throws the body away, as undici's `dump()`: read to its end up to 128 KiB, else the connection is closed. */
  dump(): Promise<void>;
}

const tooLarge = (maxBytes: number, what: string, bytesRead: number) =>
  new ResponseBodyError(
    `the response body is over the ${maxBytes}-byte limit (${what}); not read further`,
    bytesRead,
  );

type Settle = { resolve: (value: Buffer) => void; reject: (error: unknown) => void };

class CollectingHandler implements Dispatcher.DispatchHandler, ResponseBody {
  private controller: Dispatcher.DispatchController | undefined;
  /** Why the request was aborted before it had a controller to abort. */
  private abortReason: Error | undefined;
  private removeAbortListener: (() => void) | undefined;
  private settleHead: { resolve: (response: DispatchedResponse) => void; reject: (error: unknown) => void };
  private headers: IncomingHttpHeaders | undefined;
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** `keep` until read or dump says: then what the body's chunks are for. */
  private mode: 'keep' | 'read' | 'dump' = 'keep';
  private maxBytes = Infinity;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private settleBody: Settle | undefined;

  constructor(
    signal: AbortSignal,
    settleHead: { resolve: (response: DispatchedResponse) => void; reject: (error: unknown) => void },
  ) {
    this.settleHead = settleHead;
    if (signal.aborted) {
      this.abortReason = abortReason(signal);
    } else {
      const onAbort = () => this.abort(abortReason(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      this.removeAbortListener = () => signal.removeEventListener('abort', onAbort);
    }
  }

  private abort(reason: Error): void {
    if (this.controller === undefined) this.abortReason ??= reason;
    else if (!this.controller.aborted) this.controller.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason !== undefined) controller.abort(this.abortReason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    // An informational answer (100 Continue, 103 Early Hints) is not the response.
    if (statusCode < 200) return;
    this.headers = headers;
    this.settleHead.resolve({ statusCode, headers, body: this });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.mode === 'dump') {
      if (this.bytes > DUMP_LIMIT_BYTES) this.abort(new errors.RequestAbortedError());
      return;
    }
    if (this.mode === 'read' && this.bytes > this.maxBytes) {
      this.abort(tooLarge(this.maxBytes, `${this.bytes} bytes so far`, this.bytes));
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.ended = true;
    this.removeAbortListener?.();
    this.settle();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.removeAbortListener?.();
    this.failure = { error };
    if (this.headers === undefined) this.settleHead.reject(error);
    else this.settle();
  }

  /** Resolves or rejects the body's reader once the body has ended or failed. */
  private settle(): void {
    const settle = this.settleBody;
    if (settle === undefined) return;
    this.settleBody = undefined;
    if (this.mode === 'dump') settle.resolve(Buffer.alloc(0));
    else if (this.failure !== undefined) settle.reject(this.failure.error);
    else settle.resolve(Buffer.concat(this.chunks, this.bytes));
    this.chunks = [];
  }

  private whenSettled(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.settleBody = { resolve, reject };
      if (this.ended || this.failure !== undefined) this.settle();
    });
  }

  /** The body's length as content-length declares it; 0 when absent or not a number. */
  private declaredLength(): number {
    const declared = Number(this.headers?.['content-length'] ?? 0);
    return Number.isFinite(declared) ? declared : 0;
  }

  read(maxBytes: number): Promise<Buffer> {
    this.mode = 'read';
    this.maxBytes = maxBytes;
    if (this.failure === undefined) {
      const declaredLength = this.declaredLength();
      const over =
        declaredLength > maxBytes
          ? tooLarge(maxBytes, `content-length ${declaredLength}`, 0)
          : this.bytes > maxBytes
            ? tooLarge(maxBytes, `${this.bytes} bytes so far`, this.bytes)
            : undefined;
      if (over !== undefined) {
        this.chunks = [];
        if (this.ended) return Promise.reject(over);
        this.abort(over);
        // An abort the request no longer heeds (it has just ended) still fails the read.
        this.failure ??= { error: over };
      }
    }
    return this.whenSettled();
  }

  async dump(): Promise<void> {
    this.mode = 'dump';
    this.chunks = [];
    if (!this.ended && (this.declaredLength() > DUMP_LIMIT_BYTES || this.bytes > DUMP_LIMIT_BYTES))
      this.abort(new errors.RequestAbortedError());
    await this.whenSettled();
  }
}

/**
 * Sends `request` through `dispatcher`; resolves with the status and headers as soon as they came (an error before
 * them rejects), the body to be read or dumped. The request is made synchronously within this call, as undici's
 * `request()` makes it (request-timings.ts relies on that).
 */
export function dispatchRequest(
  dispatcher: Dispatcher,
  request: OutgoingRequest,
): Promise<DispatchedResponse> {
  return new Promise((resolve, reject) => {
    const handler = new CollectingHandler(request.signal, { resolve, reject });
    const url = new URL(request.url);
    // An error of the dispatch itself (a closed agent, an invalid header) reaches the handler's onResponseError.
    dispatcher.dispatch(
      {
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: request.method,
        headers: request.headers,
        body: request.body ?? null,
      },
      handler,
    );
  });
}
