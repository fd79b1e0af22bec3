import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { MonitorNode } from '../contract/monitor-definition.js';
import type { SecretRefContext } from '../secrets/secret-refs.js';
import type { BodyChecks } from './body-checks.js';
import type { ConnectionSettings } from './open-connection.js';
import type { ReceivedBody } from './response-body.js';
import type { TlsFacts } from './tls-facts.js';

export type HttpRequestNode = Extract<MonitorNode, { type: 'HTTP_REQUEST' }>;
export type WaitNode = Extract<MonitorNode, { type: 'WAIT' }>;
export type TcpConnectNode = Extract<MonitorNode, { type: 'TCP_CONNECT' }>;
export type DnsQueryNode = Extract<MonitorNode, { type: 'DNS_QUERY' }>;
export type GrpcHealthCheckNode = Extract<MonitorNode, { type: 'GRPC_HEALTH_CHECK' }>;
export type AssertionNode = Extract<MonitorNode, { type: 'ASSERTION' }>;

/** What a finished HTTP_REQUEST (or TCP, DNS, gRPC step) left for the assertions that name it. */
export interface RecordedResponse {
  /** HTTP only. */
  status?: number;
  headers?: IncomingHttpHeaders;
  /** What a `text` (and, for JSON, a `body`) assertion reads: a TCP step's bytes, a DNS answer as JSON. */
  body: ReceivedBody;
  format: HttpRequestNode['response_format'] | 'TEXT';
  responseTimeMs: number;
  /** The facts of the TLS connection the answer came over; absent for plain connections. */
  tls?: TlsFacts | undefined;
  /** A DNS answer's code, for `rcode` assertions. */
  rcode?: string;
  /** A gRPC health answer's status, for `servingStatus` assertions. */
  servingStatus?: string;
}

/** Everything the steps of one run share. */
export interface StepContext {
  /** Aborted when the run times out or its caller cancels it; the reason says which. */
  runSignal: AbortSignal;
  secrets: SecretRefContext;
  /** Every secret value a step resolved, so that the outcome can be redacted at the end. */
  secretValues: Set<string>;
  responses: Map<string, RecordedResponse>;
  /** The runner's pool; redirects are followed by the step itself (redirect-hops.ts), on the same pool. */
  dispatcher: Dispatcher;
  /** The pool of nodes with `verify_tls: false`: it accepts certificates that do not verify. */
  unverifiedDispatcher(): Dispatcher;
  /** The egress policy and trusted CAs of the connections TCP, DNS and gRPC steps open themselves. */
  connections: ConnectionSettings;
  requestTimeoutMs: number;
  maxBodyBytes: number;
  /** The run's JSONPath body assertions, evaluated off the event loop. */
  bodyChecks: BodyChecks;
  now(): Date;
}

/** Milliseconds since a `performance.now()` reading, to a tenth. */
export const elapsedMs = (since: number): number => Math.round((performance.now() - since) * 10) / 10;
