import { errorMessage } from '../log/error-facts.js';
import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { getServers } from 'node:dns';
import { connect, isIP, type Socket } from 'node:net';
import { decode, encode, RECURSION_DESIRED, type DecodedPacket } from 'dns-packet';
import { lookupUnderEgress } from '../egress/egress-connector.js';
import { dnsResultOf } from './dns-answers.js';
import { openConnection, whenSocket } from './open-connection.js';
import type { StepResult } from './run-outcome.js';
import { elapsedMs, type DnsQueryNode, type StepContext } from './step-context.js';
import { stepDeadline, unlessAborted } from './step-deadline.js';
import { ProtocolAnswerError, recordStepFailure } from './step-errors.js';
import { hostPort } from './tcp-connect-step.js';

const DNS_PORT = 53;

/** The resolver a node names, or the first of the process's own (`/etc/resolv.conf`), which the operator chose. */
function resolverOf(node: DnsQueryNode): { host: string; port: number; chosenByMonitor: boolean } {
  if (node.resolver !== undefined)
    return { host: node.resolver, port: node.resolver_port ?? DNS_PORT, chosenByMonitor: true };
  const [first] = getServers();
  if (first === undefined)
    throw new ProtocolAnswerError('this process has no DNS resolver configured', 'dns');
  // getServers() writes a port only when it is not 53: `1.2.3.4:5353`, `[::1]:5353`.
  const withPort = /^\[(.+)\]:(\d+)$/.exec(first) ?? /^([^:]+):(\d+)$/.exec(first);
  const [, host, port] = withPort ?? [];
  if (host !== undefined && port !== undefined) return { host, port: Number(port), chosenByMonitor: false };
  return { host: first, port: DNS_PORT, chosenByMonitor: false };
}

function decodeAnswer(bytes: Buffer, id: number): DecodedPacket {
  let packet: DecodedPacket;
  try {
    packet = decode(bytes);
  } catch (error) {
    throw new ProtocolAnswerError(
      `the resolver's answer is not a DNS message: ${errorMessage(error)}`,
      'dns',
    );
  }
  if (packet.id !== id)
    throw new ProtocolAnswerError(`the answer's id ${packet.id} is not the query's ${id}`, 'dns');
  return packet;
}

/** One datagram to the resolver; the first datagram from that address and port with the query's id answers it. */
async function queryOverUdp(
  query: Buffer,
  id: number,
  to: { address: string; family: number; port: number },
  signal: AbortSignal,
): Promise<Buffer> {
  const socket = createSocket(to.family === 6 ? 'udp6' : 'udp4');
  try {
    return await unlessAborted(
      new Promise<Buffer>((resolve, reject) => {
        socket.on('message', (message, from) => {
          const fromResolver = from.address === to.address && from.port === to.port;
          if (fromResolver && message.length >= 2 && message.readUInt16BE(0) === id) resolve(message);
        });
        socket.once('error', reject);
        socket.send(query, to.port, to.address, (error) => error && reject(error));
      }),
      signal,
    );
  } finally {
    socket.close();
  }
}

/** The query length-prefixed on a TCP connection (RFC 1035 4.2.2); the answer is read the same way. */
async function queryOverTcp(socket: Socket, query: Buffer, signal: AbortSignal): Promise<Buffer> {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(query.length);
  socket.write(Buffer.concat([length, query]));
  let received = Buffer.alloc(0);
  return unlessAborted(
    new Promise<Buffer>((resolve, reject) => {
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0))
          resolve(received.subarray(2, 2 + received.readUInt16BE(0)));
      });
      socket.once('end', () =>
        reject(new ProtocolAnswerError('the resolver closed the connection without an answer', 'dns')),
      );
      socket.once('error', reject);
    }),
    signal,
  );
}

/**
 * A DNS_QUERY step: asks `resolver` (or the process's resolver) for `record_type` records of `name` over UDP or
 * TCP and records the rcode and answers. Any answer passes the step, NXDOMAIN included: as an HTTP 404, the
 * assertions judge it. A resolver the monitor names is judged by the egress policy; the process's own is not.
 */
export async function executeDnsQuery(node: DnsQueryNode, context: StepContext): Promise<StepResult> {
  const started = performance.now();
  const result: StepResult = {
    nodeId: node.id,
    type: 'DNS_QUERY',
    status: 'passed',
    startedAt: context.now().toISOString(),
    durationMs: null,
  };
  const deadline = stepDeadline(node.timeout_ms ?? context.requestTimeoutMs, context.runSignal);
  let tcp: Socket | undefined;
  try {
    const resolver = resolverOf(node);
    result.request = {
      method: node.record_type,
      url: `dns://${hostPort(resolver.host, resolver.port)}/${node.name}`,
    };
    const id = randomInt(65_536);
    const query = encode({
      type: 'query',
      id,
      flags: node.recursion_desired === false ? 0 : RECURSION_DESIRED,
      questions: [{ type: node.record_type, name: node.name, class: 'IN' }],
    });
    let bytes: Buffer;
    if (node.transport === 'TCP') {
      if (resolver.chosenByMonitor) {
        tcp = (await openConnection(resolver, context.connections, deadline.signal)).socket;
      } else {
        tcp = connect({ host: resolver.host, port: resolver.port });
        await whenSocket(tcp, 'connect', deadline.signal);
      }
      deadline.phase = 'waiting for the answer';
      bytes = await queryOverTcp(tcp, query, deadline.signal);
    } else {
      const address = resolver.chosenByMonitor
        ? await unlessAborted(
            lookupUnderEgress(context.connections.egress, resolver.host, resolver.port),
            deadline.signal,
          )
        : { address: resolver.host, family: isIP(resolver.host) };
      deadline.phase = 'waiting for the answer';
      bytes = await queryOverUdp(query, id, { ...address, port: resolver.port }, deadline.signal);
    }
    const packet = decodeAnswer(bytes, id);
    if (packet.flag_tc)
      throw new ProtocolAnswerError('the answer was truncated over UDP: set transport: TCP', 'dns');
    const dns = dnsResultOf(packet);
    result.dns = dns;
    result.timings = { totalMs: elapsedMs(started) };
    context.responses.set(node.id, {
      // JSONPath assertions run on the JSON text (assertion-pool.ts): `text` reads the same document.
      body: { bytes: bytes.length, text: JSON.stringify(dns), json: dns },
      format: 'JSON',
      responseTimeMs: result.timings.totalMs,
      rcode: dns.rcode,
    });
  } catch (error) {
    recordStepFailure(result, error, context.runSignal);
  } finally {
    deadline.release();
    tcp?.destroy();
  }
  result.durationMs = elapsedMs(started);
  return result;
}
