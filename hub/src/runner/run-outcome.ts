import type { Dispatcher } from 'undici';
import type { MonitorNode } from '../contract/monitor-definition.js';
import type { EgressPolicy } from '../egress/egress-policy.js';
import type { DnsResult } from './dns-answers.js';
import type { TlsFacts } from './tls-facts.js';

/** The error classes of DESIGN.md "Health": the keys of a monitor's `errorDistribution`. */
export const ERROR_CLASSES = ['assertion', 'timeout', 'connection', 'dns', 'tls', 'http', 'runner'] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

export interface StepTimings {
  /** From the start of the request to the end of its body: what a `responseTime` assertion compares. */
  totalMs: number;
  /** Name lookup of a new connection (absent for an IP address or a reused pooled connection). */
  dnsMs?: number;
  /** TCP connect of a new connection (absent for a reused pooled connection). */
  connectMs?: number;
  /** TLS handshake of a new https connection. */
  tlsMs?: number;
  /** From the start of the request to its response headers. */
  firstByteMs?: number;
}

export interface AssertionOutcome {
  /** The HTTP_REQUEST node whose response was checked. */
  nodeId: string;
  subject: string;
  headerName?: string;
  path?: string;
  operator: string;
  expected?: unknown;
  /** What the response held (undefined when absent); strings and JSON over 1 KiB are cut. */
  actual: unknown;
  passed: boolean;
  /** e.g. `login status EQUAL 201, got 503`. */
  message: string;
}

export interface StepResult {
  nodeId: string;
  type: MonitorNode['type'];
  status: 'passed' | 'failed' | 'skipped';
  /** ISO time the step started; null when it was skipped. */
  startedAt: string | null;
  durationMs: number | null;
  /** Why it failed, or why it was skipped. */
  error?: string;
  errorClass?: ErrorClass;
  request?: { method: string; url: string };
  /**
   * The response's status and size, and the first 1 KiB of its body as text (`excerpt`, `…` where it was cut),
   * with the run's secret values redacted like every other string of the outcome.
   */
  response?: { status: number; bytes: number; excerpt?: string };
  /** What a TCP_CONNECT with `expect` read: its size and first 1 KiB, as `response` has. */
  received?: { bytes: number; excerpt?: string };
  /** A DNS_QUERY's answer: its rcode and records. */
  dns?: DnsResult;
  /** A GRPC_HEALTH_CHECK's answer: the gRPC status code and the serving status (`SERVING`, `NOT_SERVING`, ...). */
  grpc?: { code: number; servingStatus: string };
  timings?: StepTimings;
  /** The redirects a `follow_redirects` request followed, in order: each answer's status and where it led. */
  redirects?: Array<{ status: number; url: string }>;
  /** The certificate and protocol of the TLS connection the step used (the last hop's, after redirects). */
  tls?: TlsFacts;
  assertions?: AssertionOutcome[];
}

export interface RunOutcome {
  /** True when every step passed. */
  success: boolean;
  /** One short line per problem, e.g. `cart: GET https://api.example.com/cart: connect ECONNREFUSED ...`. */
  errors: string[];
  /** `errorClasses[i]` is the class of `errors[i]`. */
  errorClasses: ErrorClass[];
  /** One per node, in the order of the definition's `nodes`. */
  steps: StepResult[];
  startedAt: Date;
  completedAt: Date;
  durationMs: number;
}

export interface MonitorRunnerOptions {
  /** Default limit of one request, body included, when the node sets no `timeout_ms`. Default 30 000. */
  requestTimeoutMs?: number;
  /** Limit of the whole run; the steps not finished by then fail or are skipped. Default 120 000. */
  runTimeoutMs?: number;
  /** Largest response body read; a larger one fails the request. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * The connection pool to send requests through; the runner builds (and closes) its own keep-alive Agent when
   * absent. DNS, connect and TLS timings are only measured on the runner's own Agent, and only its connections
   * pass `egress`: a dispatcher passed in answers for its own.
   */
  dispatcher?: Dispatcher;
  /**
   * The egress policy every connection of the runner's own Agent, and every connection of a TCP, DNS or gRPC step,
   * passes (docs/egress.md); default the built-in
   * denies of a production process (link-local, metadata, loopback).
   */
  egress?: EgressPolicy;
  /**
   * PEM certificates the runner's own Agent trusts besides Node's bundled roots: the CA of an internal API.
   * (NODE_EXTRA_CA_CERTS does the same for the whole process.)
   */
  extraCaCertificates?: string[];
  /** Source of the timestamps in the outcome; durations come from a monotonic clock. */
  clock?: { now(): Date };
  /**
   * ASSERTION_BUDGET_MS: the time a run's JSONPath body assertions may take, together, on the runner's assertion
   * threads; past it they fail (docs/adr/0010-assertion-evaluation.md). Default 2 000.
   */
  assertionBudgetMs?: number | undefined;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_RUN_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_ASSERTION_BUDGET_MS = 2_000;
export const MAX_REDIRECTS = 10;

/** The error of a run whose monitor was gone when it started, as the worker and a runner Job report it. */
export const MONITOR_DELETED_ERROR = 'the monitor was deleted before the run started';
