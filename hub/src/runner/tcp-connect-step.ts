import type { Socket } from 'node:net';
import { resolveSecretRefs, type JsonValue } from '../secrets/secret-refs.js';
import { openConnection } from './open-connection.js';
import type { StepResult } from './run-outcome.js';
import { elapsedMs, type StepContext, type TcpConnectNode } from './step-context.js';
import { abortReason, stepDeadline, unlessAborted } from './step-deadline.js';
import { ProtocolAnswerError, recordStepFailure } from './step-errors.js';

/** Bytes a TCP step reads while looking for its `expect`: a banner or a short answer, never a download. */
const MAX_RECEIVED_BYTES = 64 * 1024;
const EXCERPT_CHARS = 1024;

/** `host:port`, with an IPv6 address in brackets as in a URL. */
export const hostPort = (host: string, port: number) =>
  host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;

/** Reads until the text received contains `expected`; rejects when the peer closes or the signal aborts first. */
function readUntil(socket: Socket, expected: string, signal: AbortSignal, onFirstByte: () => void) {
  return new Promise<Buffer>((resolve, reject) => {
    // Kept as received, so the step reports what came before a failure too.
    const chunks: Buffer[] = [];
    let bytes = 0;
    const received = () => Buffer.concat(chunks);
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const fail = (error: Error) => {
      cleanup();
      reject(Object.assign(error, { received: received() }));
    };
    const onData = (chunk: Buffer) => {
      if (bytes === 0) onFirstByte();
      chunks.push(chunk);
      bytes += chunk.length;
      if (received().toString('utf8').includes(expected)) {
        cleanup();
        resolve(received());
      } else if (bytes >= MAX_RECEIVED_BYTES) {
        fail(new ProtocolAnswerError(`"${expected}" not in the first ${bytes} bytes received`, 'assertion'));
      }
    };
    const onEnd = () =>
      fail(
        new ProtocolAnswerError(
          `the connection closed after ${bytes} bytes without "${expected}"`,
          'assertion',
        ),
      );
    const onError = (error: Error) => fail(error);
    const onAbort = () => fail(abortReason(signal));
    if (signal.aborted) return onAbort();
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const excerptOf = (text: string) => (text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text);

/**
 * A TCP_CONNECT step: connects (under the egress policy), optionally completes a TLS handshake, writes `send`
 * and reads until `expect` appears. Without `expect` a connection that opens (and handshakes) passes.
 */
export async function executeTcpConnect(node: TcpConnectNode, context: StepContext): Promise<StepResult> {
  const started = performance.now();
  const result: StepResult = {
    nodeId: node.id,
    type: 'TCP_CONNECT',
    status: 'passed',
    startedAt: context.now().toISOString(),
    durationMs: null,
    request: {
      method: 'TCP',
      url: `${node.tls === true ? 'tls' : 'tcp'}://${hostPort(node.host, node.port)}`,
    },
  };
  const deadline = stepDeadline(node.timeout_ms ?? context.requestTimeoutMs, context.runSignal);
  let socket: Socket | undefined;
  let firstByteAt: number | undefined;
  let received: Buffer = Buffer.alloc(0);
  try {
    let send: string | undefined;
    if (node.send !== undefined) {
      const { value, secretValues } = await resolveSecretRefs(node.send as JsonValue, context.secrets);
      for (const secret of secretValues) context.secretValues.add(secret);
      send = value as string;
    }
    const opened = await openConnection(
      {
        host: node.host,
        port: node.port,
        ...(node.tls === true
          ? { tls: { serverName: node.server_name, verify: node.verify_tls !== false } }
          : {}),
      },
      context.connections,
      deadline.signal,
    );
    socket = opened.socket;
    if (opened.tls !== undefined) result.tls = opened.tls;
    result.timings = { totalMs: 0, ...opened.timings };
    if (send !== undefined) {
      deadline.phase = 'while sending';
      const connected = socket;
      await unlessAborted(
        new Promise<void>((resolve, reject) =>
          connected.write(send, (error) => (error ? reject(error) : resolve())),
        ),
        deadline.signal,
      );
    }
    if (node.expect !== undefined) {
      deadline.phase = `waiting for "${node.expect}"`;
      received = await readUntil(
        socket,
        node.expect,
        deadline.signal,
        () => (firstByteAt = performance.now()),
      );
    }
  } catch (error) {
    // readUntil's rejections carry what came before the failure.
    if (error instanceof Error && 'received' in error && Buffer.isBuffer(error.received))
      received = error.received;
    recordStepFailure(result, error, context.runSignal);
  } finally {
    deadline.release();
    socket?.destroy();
  }
  const totalMs = elapsedMs(started);
  if (result.timings !== undefined) {
    result.timings.totalMs = totalMs;
    if (firstByteAt !== undefined) result.timings.firstByteMs = Math.round((firstByteAt - started) * 10) / 10;
  }
  const text = received.toString('utf8');
  if (node.expect !== undefined)
    result.received = { bytes: received.length, ...(text === '' ? {} : { excerpt: excerptOf(text) }) };
  if (result.status === 'passed')
    context.responses.set(node.id, {
      body: { bytes: received.length, text, json: undefined },
      format: 'TEXT',
      responseTimeMs: totalMs,
      tls: result.tls,
    });
  result.durationMs = totalMs;
  return result;
}
