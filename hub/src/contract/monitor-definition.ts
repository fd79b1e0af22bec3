import { z } from 'zod';
import { assertionSchema } from './assertion.js';
import { boundedJsonSchema, MAX_JSON_DEPTH } from './json-value.js';
import { heartbeatSchema } from './heartbeat.js';
import { labelsSchema } from './labels.js';
import { checkMonitorGraph } from './monitor-graph.js';
import { notificationDefinitionSchema } from './notification-definition.js';
import { HEADER_NAME, requestHeadersSchema } from './request-headers.js';
import { secretOrStringSchema } from './secret-reference.js';

export const MONITOR_SCHEMA_VERSION = '1.0';
const MAX_NODES = 100;

const nodeIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a node id is 1-64 letters, digits, "_", "." or "-"')
  .meta({ description: 'id: required. Unique within the monitor.' });

/** Shared by every node type that can speak TLS. */
const verifyTlsSchema = z
  .boolean()
  .optional()
  .meta({
    description:
      'verify_tls: optional, default true. With false a certificate that does not verify (self-signed, expired, ' +
      'another name) is accepted; its facts are still recorded for the certificate assertions to judge.',
  });

const httpRequestNodeSchema = z
  .strictObject({
    id: nodeIdSchema,
    type: z.literal('HTTP_REQUEST'),
    // CONNECT opens a tunnel rather than making a request, and TRACE echoes the request headers, resolved
    // secrets included, into the response a run records.
    method: z.enum(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']).meta({
      description: 'method: required. CONNECT and TRACE are refused.',
    }),
    base: secretOrStringSchema.meta({ description: 'base: required. Scheme, host and optional base path.' }),
    path: secretOrStringSchema.meta({ description: 'path: required. Joined to base with exactly one "/".' }),
    headers: requestHeadersSchema.optional(),
    body: boundedJsonSchema.optional().meta({
      description: `body: optional. Any JSON at most ${MAX_JSON_DEPTH} levels deep, sent as application/json.`,
    }),
    response_format: z.enum(['JSON', 'XML', 'NO_CONTENT']),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(120_000)
      .optional()
      .meta({ description: 'timeout_ms: optional, default 30000. The whole request, body included, in ms.' }),
    follow_redirects: z
      .boolean()
      .optional()
      .meta({ description: 'follow_redirects: optional, default false. Follow up to 10 redirects.' }),
    redirect_safe_headers: z
      .array(z.string().regex(HEADER_NAME, 'a header name is 1-256 characters of an RFC 9110 token'))
      .max(50)
      .optional()
      .meta({
        description:
          'redirect_safe_headers: optional. Names of headers still sent after a redirect to another origin; ' +
          'the others are dropped there. Authorization, Cookie, Proxy-Authorization and headers whose value ' +
          'is a $secret are never sent on.',
      }),
    verify_tls: verifyTlsSchema,
  })
  .meta({ id: 'HttpRequestNode' });

/** A host name or an address literal (IPv6 without brackets), as the connection is made to it. */
const hostSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,253}$/, 'host is a DNS name or an IP address (IPv6 without brackets)');

const portSchema = z.number().int().min(1).max(65_535);

const stepTimeoutSchema = z
  .number()
  .int()
  .min(1)
  .max(120_000)
  .optional()
  .meta({ description: 'timeout_ms: optional, default 30000. The whole step, in ms.' });

/** Where a TCP or gRPC node connects. */
const endpointFields = {
  host: hostSchema.meta({ description: 'host: required. A DNS name or an IP address.' }),
  port: portSchema.meta({ description: 'port: required. 1 to 65535.' }),
};

/** How a TCP or gRPC node names and verifies the server when it speaks TLS. */
const tlsNameFields = {
  server_name: hostSchema
    .optional()
    .meta({ description: 'server_name: optional, default host. The TLS name sent (SNI) and verified.' }),
  verify_tls: verifyTlsSchema,
};

const tcpConnectNodeSchema = z
  .strictObject({
    id: nodeIdSchema,
    type: z.literal('TCP_CONNECT'),
    ...endpointFields,
    tls: z
      .boolean()
      .optional()
      .meta({ description: 'tls: optional, default false. Complete a TLS handshake after connecting.' }),
    ...tlsNameFields,
    send: secretOrStringSchema.optional().meta({
      description: 'send: optional. Text written once connected (UTF-8), e.g. "PING\r\n"; may be a $secret.',
    }),
    expect: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .meta({
        description:
          'expect: optional. Text the first bytes received must contain: the step reads until it appears ' +
          '(at most 64 KiB) and fails if the connection ends or times out first.',
      }),
    timeout_ms: stepTimeoutSchema,
  })
  .meta({ id: 'TcpConnectNode' });

const dnsQueryNodeSchema = z
  .strictObject({
    id: nodeIdSchema,
    type: z.literal('DNS_QUERY'),
    name: z
      .string()
      .regex(/^[A-Za-z0-9_*.-]{1,253}$/, 'name is a DNS name')
      .meta({ description: 'name: required. The name to query, e.g. `api.example.com`.' }),
    record_type: z
      .enum(['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SRV', 'SOA', 'PTR', 'CAA'])
      .meta({ description: 'record_type: required. The record type asked for.' }),
    resolver: hostSchema.optional().meta({
      description:
        "resolver: optional. The DNS server's address or name; default the first resolver of the runner's host.",
    }),
    resolver_port: portSchema.optional().meta({ description: 'resolver_port: optional, default 53.' }),
    transport: z
      .enum(['UDP', 'TCP'])
      .optional()
      .meta({ description: 'transport: optional, default UDP. TCP for answers too large for a datagram.' }),
    recursion_desired: z
      .boolean()
      .optional()
      .meta({ description: 'recursion_desired: optional, default true. The RD flag of the query.' }),
    timeout_ms: stepTimeoutSchema,
  })
  .meta({ id: 'DnsQueryNode' });

const grpcHealthCheckNodeSchema = z
  .strictObject({
    id: nodeIdSchema,
    type: z.literal('GRPC_HEALTH_CHECK'),
    ...endpointFields,
    service: z
      .string()
      .max(256)
      .regex(/^[A-Za-z0-9_.-]*$/, 'service is a gRPC service name such as `shop.v1.Cart`')
      .optional()
      .meta({
        description: 'service: optional, default "" (the server as a whole). The service asked about.',
      }),
    tls: z
      .boolean()
      .optional()
      .meta({ description: 'tls: optional, default false (cleartext HTTP/2). TLS with ALPN h2.' }),
    ...tlsNameFields,
    timeout_ms: stepTimeoutSchema,
  })
  .meta({ id: 'GrpcHealthCheckNode' });

const waitNodeSchema = z
  .strictObject({
    id: nodeIdSchema,
    type: z.literal('WAIT'),
    duration_ms: z
      .number()
      .min(0)
      .max(120_000)
      .meta({ description: 'duration_ms: required. 0 to 120000 (the run timeout).' }),
  })
  .meta({ id: 'WaitNode' });

const assertionNodeSchema = z
  .strictObject({
    id: nodeIdSchema,
    type: z.literal('ASSERTION'),
    assertions: z.array(assertionSchema).min(1).max(100),
  })
  .meta({ id: 'AssertionNode' });

export const nodeSchema = z
  .discriminatedUnion('type', [
    httpRequestNodeSchema,
    tcpConnectNodeSchema,
    dnsQueryNodeSchema,
    grpcHealthCheckNodeSchema,
    waitNodeSchema,
    assertionNodeSchema,
  ])
  .meta({ id: 'Node' });
export type MonitorNode = z.infer<typeof nodeSchema>;

export const edgeSchema = z
  .strictObject({ from: z.string().min(1).max(64), to: z.string().min(1).max(64) })
  .meta({ id: 'Edge' });
export type Edge = z.infer<typeof edgeSchema>;

const secondsPerUnit = { MINUTE: 60, HOUR: 3600, DAY: 86_400 } as const;
const MIN_INTERVAL_SECONDS = 10;
const MAX_INTERVAL_SECONDS = 30 * 86_400;

export const frequencySchema = z
  .strictObject({
    every: z.number().positive(),
    unit: z.enum(['MINUTE', 'HOUR', 'DAY']),
  })
  .superRefine((frequency, ctx) => {
    const seconds = frequencyToSeconds(frequency);
    if (seconds < MIN_INTERVAL_SECONDS || seconds > MAX_INTERVAL_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['every'],
        message: `the interval must be between 10 seconds and 30 days (got ${seconds} s)`,
      });
    }
  })
  .meta({ id: 'Frequency' });
export type Frequency = z.infer<typeof frequencySchema>;

export function frequencyToSeconds(frequency: { every: number; unit: keyof typeof secondsPerUnit }): number {
  return frequency.every * secondsPerUnit[frequency.unit];
}

/** Plain, URL- and label-friendly names for projects, environments and locations. */
export const scopeNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/,
    'must be 1-63 letters, digits, "_", "." or "-", starting with a letter or digit',
  );

/** The monitor definition: what PUT /monitor/{id} takes, what `meerkat apply` reads and the CRD's spec. */
export const monitorDefinitionSchema = z
  .strictObject({
    project: scopeNameSchema.meta({ description: 'project: required.' }),
    name: z
      .string()
      .min(1)
      .max(200)
      .meta({ description: 'name: required. Unique within project and environment.' }),
    version: z
      .literal(MONITOR_SCHEMA_VERSION)
      .meta({ description: 'version: required. The definition schema version.' }),
    frequency: frequencySchema,
    environment: scopeNameSchema
      .default('default')
      .meta({ description: 'environment: optional, default `default`.' }),
    locations: z
      .array(scopeNameSchema)
      .max(50)
      .optional()
      .meta({
        description:
          'locations: optional. Configured location names (at least one); without it the monitor runs in ' +
          '`default`. A heartbeat monitor has none (stored as []).',
      }),
    nodes: z
      .array(nodeSchema)
      .max(MAX_NODES)
      .default([])
      .meta({ description: 'nodes: required (1 to 100) but for a heartbeat monitor, which has none.' }),
    edges: z
      .array(edgeSchema)
      .max(10 * MAX_NODES)
      .default([])
      .meta({ description: 'edges: optional, default []. `from` runs before `to`.' }),
    notifications: z.array(notificationDefinitionSchema).max(50).optional(),
    heartbeat: heartbeatSchema.optional(),
    labels: labelsSchema.optional(),
  })
  .superRefine(checkMonitorGraph)
  .superRefine(checkMonitorKind)
  // A heartbeat runs at no location: stored with none, so the scheduler and the slot ledger give it no slots.
  .overwrite((monitor) => (monitor.heartbeat === undefined ? monitor : { ...monitor, locations: [] }))
  .meta({ id: 'MonitorDefinition' });
export type MonitorDefinition = z.output<typeof monitorDefinitionSchema>;
export type MonitorDefinitionInput = z.input<typeof monitorDefinitionSchema>;

/** A check monitor has nodes and runs somewhere; a heartbeat monitor has neither (docs/adr/0034). */
function checkMonitorKind(
  monitor: { nodes: unknown[]; edges: unknown[]; locations?: string[] | undefined; heartbeat?: unknown },
  ctx: z.RefinementCtx,
): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (monitor.heartbeat === undefined) {
    if (monitor.nodes.length === 0) issue('nodes', 'a monitor needs at least one node (or a heartbeat)');
    if (monitor.locations?.length === 0) issue('locations', 'name at least one location, or leave it out');
    return;
  }
  if (monitor.nodes.length > 0) issue('nodes', 'a heartbeat monitor has no nodes: its job pings the hub');
  if (monitor.edges.length > 0) issue('edges', 'a heartbeat monitor has no edges');
  if ((monitor.locations?.length ?? 0) > 0)
    issue('locations', 'a heartbeat monitor runs at no location: pings come to the hub');
}

export const monitorIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._~-]{0,63}$/,
    'a monitor id is 1-64 URL-safe characters (letters, digits, ".", "_", "~", "-")',
  );

/**
 * A stored monitor as the API answers it: the definition's fields, read from its schema so the two cannot drift,
 * with `version` the one it was stored under (older ones are upgraded only on `?version=latest`), the id and the
 * timestamps.
 */
export const monitorSchema = z
  .object({
    id: z.string(),
    ...monitorDefinitionSchema.shape,
    version: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Monitor' });
export type Monitor = z.infer<typeof monitorSchema>;
