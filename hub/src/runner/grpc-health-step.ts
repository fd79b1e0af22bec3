import { connect as connectHttp2, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import {
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  GRPC_CODES,
  HEALTH_CHECK_PATH,
} from './grpc-health-protocol.js';
import { openConnection } from './open-connection.js';
import type { StepResult } from './run-outcome.js';
import { elapsedMs, type GrpcHealthCheckNode, type StepContext } from './step-context.js';
import { stepDeadline, unlessAborted } from './step-deadline.js';
import { ProtocolAnswerError, recordStepFailure } from './step-errors.js';
import { hostPort } from './tcp-connect-step.js';

const GRPC_NOT_FOUND = 5;

interface GrpcAnswer {
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders;
  body: Buffer;
  /** performance.now() when the response headers came. */
  headersAt: number | undefined;
}

/** One unary call on the session: its headers, body and trailers, the body bounded. */
function call(session: ClientHttp2Session, service: string, timeoutMs: number): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': HEALTH_CHECK_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': `${timeoutMs}m`,
      'user-agent': 'meerkat',
    });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let bytes = 0;
    let headersAt: number | undefined;
    stream.on('response', (received) => {
      headers = received;
      headersAt = performance.now();
    });
    stream.on('trailers', (received: IncomingHttpHeaders) => (trailers = received));
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > 64 * 1024) stream.close();
      else chunks.push(chunk);
    });
    stream.once('error', reject);
    stream.once('close', () => resolve({ headers, trailers, body: Buffer.concat(chunks), headersAt }));
    stream.end(encodeHealthCheckRequest(service));
  });
}

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The serving status of an answer; NOT_FOUND is the health service's word for a service it does not know. */
function servingStatusOf(answer: GrpcAnswer): { code: number; servingStatus: string } {
  const httpStatus = Number(answer.headers[':status']);
  if (httpStatus !== 200)
    throw new ProtocolAnswerError(`the server answered HTTP ${httpStatus}, not gRPC`, 'http');
  // A trailers-only answer (an error) carries grpc-status in its headers.
  const status = headerText(answer.trailers['grpc-status'] ?? answer.headers['grpc-status']);
  const code = Number(status);
  if (status === undefined || !Number.isInteger(code))
    throw new ProtocolAnswerError('the answer has no grpc-status', 'http');
  if (code === GRPC_NOT_FOUND) return { code, servingStatus: 'SERVICE_UNKNOWN' };
  if (code !== 0) {
    const message = headerText(answer.trailers['grpc-message'] ?? answer.headers['grpc-message']) ?? '';
    const name = GRPC_CODES[code] ?? String(code);
    throw new ProtocolAnswerError(
      `grpc-status ${code} (${name})${message === '' ? '' : `: ${decodeURIComponent(message)}`}`,
      'http',
    );
  }
  return { code, servingStatus: decodeHealthCheckResponse(answer.body) };
}

/**
 * A GRPC_HEALTH_CHECK step: `grpc.health.v1.Health/Check` of `service` over HTTP/2 (TLS with ALPN h2, or
 * cleartext h2c), on a connection opened under the egress policy. Any health answer passes the step, NOT_SERVING
 * included; a `servingStatus` assertion judges it. Another gRPC error (UNIMPLEMENTED: no health service) fails it.
 */
export async function executeGrpcHealthCheck(
  node: GrpcHealthCheckNode,
  context: StepContext,
): Promise<StepResult> {
  const started = performance.now();
  const service = node.service ?? '';
  const result: StepResult = {
    nodeId: node.id,
    type: 'GRPC_HEALTH_CHECK',
    status: 'passed',
    startedAt: context.now().toISOString(),
    durationMs: null,
    request: {
      method: 'Check',
      url: `grpc${node.tls === true ? 's' : ''}://${hostPort(node.host, node.port)}/${service}`,
    },
  };
  const timeoutMs = node.timeout_ms ?? context.requestTimeoutMs;
  const deadline = stepDeadline(timeoutMs, context.runSignal);
  let session: ClientHttp2Session | undefined;
  try {
    const opened = await openConnection(
      {
        host: node.host,
        port: node.port,
        ...(node.tls === true
          ? { tls: { serverName: node.server_name, verify: node.verify_tls !== false, alpn: ['h2'] } }
          : {}),
      },
      context.connections,
      deadline.signal,
    );
    if (opened.tls !== undefined) result.tls = opened.tls;
    const authority = `${node.tls === true ? 'https' : 'http'}://${hostPort(node.server_name ?? node.host, node.port)}`;
    session = connectHttp2(authority, { createConnection: () => opened.socket });
    session.on('error', () => undefined); // the call's own error says what went wrong
    deadline.phase = 'waiting for the answer';
    const answer = await unlessAborted(call(session, service, timeoutMs), deadline.signal);
    const { code, servingStatus } = servingStatusOf(answer);
    result.grpc = { code, servingStatus };
    result.timings = { ...opened.timings, totalMs: elapsedMs(started) };
    if (answer.headersAt !== undefined)
      result.timings.firstByteMs = Math.round((answer.headersAt - started) * 10) / 10;
    context.responses.set(node.id, {
      body: { bytes: answer.body.length, text: '', json: undefined },
      format: 'NO_CONTENT',
      responseTimeMs: result.timings.totalMs,
      tls: result.tls,
      servingStatus,
    });
  } catch (error) {
    recordStepFailure(result, error, context.runSignal);
  } finally {
    deadline.release();
    session?.destroy();
  }
  result.durationMs = elapsedMs(started);
  return result;
}
