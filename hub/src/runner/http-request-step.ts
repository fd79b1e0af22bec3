import type { DispatchedResponse } from './dispatched-request.js';
import { sendFollowingRedirects, type RedirectHop } from './redirect-hops.js';
import { RequestProbe } from './request-timings.js';
import { receiveBody } from './response-body.js';
import { resolveRequestTarget, type RequestTarget } from './request-target.js';
import type { StepResult } from './run-outcome.js';
import { elapsedMs, type HttpRequestNode, type StepContext } from './step-context.js';
import { unlessAborted } from './step-deadline.js';
import { classifyStepError, RequestTimeoutError, ResponseBodyError } from './step-errors.js';

/** Characters of a response body a run keeps, so its page can show what came back. */
const EXCERPT_CHARS = 1024;

/**
 * The start of a body, `…` marking a cut: redaction (outcome-finalization.ts) then hides a secret cut in half by
 * the mark as it hides one a library's message cut.
 */
function excerptOf(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/**
 * Sends one request and reads its body, all within the node's timeout; the run's end aborts it too.
 * `onHeaders` sees the status as soon as it is known, so a body that then fails still reports it.
 */
async function sendWithinTimeout(
  node: HttpRequestNode,
  target: RequestTarget,
  context: StepContext,
  probe: RequestProbe,
  onHeaders: (response: DispatchedResponse) => void,
  onRedirect: (hop: RedirectHop) => void,
) {
  const timeoutMs = node.timeout_ms ?? context.requestTimeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new RequestTimeoutError(timeoutMs, probe.phase())),
    timeoutMs,
  );
  const onRunAbort = () => controller.abort(context.runSignal.reason);
  context.runSignal.addEventListener('abort', onRunAbort, { once: true });
  try {
    context.runSignal.throwIfAborted();
    const response = await sendFollowingRedirects(target, node.method, {
      dispatcher: node.verify_tls === false ? context.unverifiedDispatcher() : context.dispatcher,
      signal: controller.signal,
      follow: node.follow_redirects === true,
      safeHeaders: new Set((node.redirect_safe_headers ?? []).map((name) => name.toLowerCase())),
      onRedirect,
      startRequest: (start) => probe.start(start),
    });
    probe.headersAt = performance.now();
    onHeaders(response);
    return { response, body: await receiveBody(response, node.response_format, context.maxBodyBytes) };
  } finally {
    clearTimeout(timer);
    context.runSignal.removeEventListener('abort', onRunAbort);
  }
}

/**
 * An HTTP_REQUEST step. It fails only when no usable response came back (network error, timeout, a body its
 * `response_format` cannot take, a missing secret): a non-2xx status is for the assertions to judge.
 */
export async function executeHttpRequest(node: HttpRequestNode, context: StepContext): Promise<StepResult> {
  const started = performance.now();
  const result: StepResult = {
    nodeId: node.id,
    type: 'HTTP_REQUEST',
    status: 'passed',
    startedAt: context.now().toISOString(),
    durationMs: null,
  };
  let probe: RequestProbe | undefined;
  try {
    const target = await unlessAborted(resolveRequestTarget(node, context), context.runSignal);
    result.request = { method: node.method, url: target.url };
    probe = new RequestProbe();
    const { response, body } = await sendWithinTimeout(
      node,
      target,
      context,
      probe,
      (headers) => (result.response = { status: headers.statusCode, bytes: 0 }),
      (hop) => (result.redirects ??= []).push(hop),
    );
    const timings = probe.timings();
    result.response = {
      status: response.statusCode,
      bytes: body.bytes,
      ...(body.text === '' ? {} : { excerpt: excerptOf(body.text) }),
    };
    result.timings = timings;
    if (probe.tls !== undefined) result.tls = probe.tls;
    context.responses.set(node.id, {
      tls: probe.tls,
      status: response.statusCode,
      headers: response.headers,
      body,
      format: node.response_format,
      responseTimeMs: timings.totalMs,
    });
  } catch (error) {
    const { errorClass, message } = classifyStepError(error, context.runSignal);
    result.status = 'failed';
    result.errorClass = errorClass;
    result.error = result.request ? `${result.request.method} ${result.request.url}: ${message}` : message;
    if (result.response !== undefined && error instanceof ResponseBodyError)
      result.response.bytes = error.bytes;
    if (probe !== undefined) result.timings = probe.timings();
  }
  result.durationMs = elapsedMs(started);
  return result;
}
