import { z } from 'zod';
import { JsonPathSyntaxError } from '../jsonpath/jsonpath-syntax-error.js';
import { parseJsonPath } from '../jsonpath/parse-jsonpath.js';
import { boundedJsonSchema, MAX_JSON_DEPTH } from './json-value.js';

export const numericOperators = [
  'GREATER_THAN',
  'LESS_THAN',
  'GREATER_THAN_OR_EQUAL',
  'LESS_THAN_OR_EQUAL',
] as const;
export const stringOperators = [
  'CONTAINS',
  'NOT_CONTAINS',
  'STARTS_WITH',
  'ENDS_WITH',
  'NOT_STARTS_WITH',
  'NOT_ENDS_WITH',
] as const;
export const binaryOperatorSchema = z.enum(['EQUAL', 'NOT_EQUAL', ...numericOperators, ...stringOperators]);
export type BinaryOperator = z.infer<typeof binaryOperatorSchema>;
export const unaryOperatorSchema = z.enum([
  'IS_NULL',
  'IS_NOT_NULL',
  'IS_TRUE',
  'IS_FALSE',
  'IS_EMPTY',
  'IS_NOT_EMPTY',
]);
export type UnaryOperator = z.infer<typeof unaryOperatorSchema>;

const numeric: ReadonlySet<BinaryOperator> = new Set(numericOperators);
const textual: ReadonlySet<BinaryOperator> = new Set(stringOperators);
const isNumeric = (operator: BinaryOperator) => numeric.has(operator);
const isTextual = (operator: BinaryOperator) => textual.has(operator);

/** Numeric operators compare numbers and string operators compare strings (DESIGN.md): say so at write time. */
const binaryPredicateSchema = z
  .strictObject({
    type: z.literal('binary'),
    operator: binaryOperatorSchema,
    expected: boundedJsonSchema.meta({
      description: `expected: required. A number for numeric operators, a string for string operators; any JSON at most ${MAX_JSON_DEPTH} levels deep.`,
    }),
  })
  .superRefine((predicate, ctx) => {
    const { operator, expected } = predicate;
    if (isNumeric(operator) && (typeof expected !== 'number' || !Number.isFinite(expected))) {
      ctx.addIssue({
        code: 'custom',
        path: ['expected'],
        message: `${operator} compares numbers: expected must be a number`,
      });
    }
    if (isTextual(operator) && typeof expected !== 'string' && typeof expected !== 'number') {
      ctx.addIssue({
        code: 'custom',
        path: ['expected'],
        message: `${operator} compares strings: expected must be a string`,
      });
    }
  })
  .meta({ id: 'BinaryPredicate' });

const unaryPredicateSchema = z
  .strictObject({ type: z.literal('unary'), operator: unaryOperatorSchema })
  .meta({ id: 'UnaryPredicate' });

/** RFC 9535 (docs/monitors.md): parsed here so that a path no run could evaluate is refused when it is saved. */
function checkJsonPath(path: string, ctx: z.RefinementCtx): void {
  if (!path.startsWith('$')) return;
  try {
    parseJsonPath(path);
  } catch (error) {
    if (!(error instanceof JsonPathSyntaxError)) throw error;
    ctx.addIssue({ code: 'custom', message: `path is not an RFC 9535 JSONPath: ${error.message}` });
  }
}

const anyPredicate = z.discriminatedUnion('type', [unaryPredicateSchema, binaryPredicateSchema]);
const nodeId = z
  .string()
  .min(1)
  .max(64)
  .meta({
    description:
      'nodeId: required. The node (an ancestor) whose result is checked: an HTTP_REQUEST, or a node type ' +
      'whose subjects docs/monitors.md lists.',
  });

/** A predicate on a number the run measured (milliseconds, days, a version): numeric operators or EQUAL. */
const numericPredicateSchema = (subject: string, unit: string) =>
  binaryPredicateSchema.refine((p) => typeof p.expected === 'number' && !isTextual(p.operator), {
    message: `${subject} compares ${unit}: use a numeric operator or EQUAL/NOT_EQUAL with a number`,
    path: ['operator'],
  });

const statusAssertionSchema = z
  .strictObject({ nodeId, subject: z.literal('status'), predicate: binaryPredicateSchema })
  .meta({ id: 'StatusAssertion' });

const headerAssertionSchema = z
  .strictObject({
    nodeId,
    subject: z.literal('headers'),
    headerName: z
      .string()
      .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, 'headerName must be an HTTP header name')
      .meta({ description: 'headerName: required. Compared case-insensitively.' }),
    predicate: anyPredicate,
  })
  .meta({ id: 'HeaderAssertion' });

const bodyAssertionSchema = z
  .strictObject({
    nodeId,
    subject: z.literal('body'),
    path: z
      .string()
      .max(512)
      .regex(/^\$/, 'path is a JSONPath expression starting with "$"')
      .superRefine(checkJsonPath)
      .meta({
        description: 'path: required. RFC 9535 JSONPath into the parsed JSON body, e.g. `$.items[0].id`.',
      }),
    predicate: anyPredicate,
  })
  .meta({ id: 'BodyAssertion' });

const responseTimeAssertionSchema = z
  .strictObject({
    nodeId,
    subject: z.literal('responseTime'),
    predicate: numericPredicateSchema('responseTime', 'milliseconds'),
  })
  .meta({ id: 'ResponseTimeAssertion' });

const rcodeAssertionSchema = z
  .strictObject({
    nodeId,
    subject: z.literal('rcode'),
    predicate: binaryPredicateSchema.meta({
      description: 'The DNS answer code as its name: NOERROR, NXDOMAIN, SERVFAIL, REFUSED...',
    }),
  })
  .meta({ id: 'RcodeAssertion' });

const servingStatusAssertionSchema = z
  .strictObject({
    nodeId,
    subject: z.literal('servingStatus'),
    predicate: binaryPredicateSchema.meta({
      description: 'The gRPC health status: SERVING, NOT_SERVING, SERVICE_UNKNOWN or UNKNOWN.',
    }),
  })
  .meta({ id: 'ServingStatusAssertion' });

const certificateExpiryAssertionSchema = z
  .strictObject({
    nodeId,
    subject: z.literal('certificateExpiresInDays'),
    predicate: numericPredicateSchema('certificateExpiresInDays', 'days'),
  })
  .meta({ id: 'CertificateExpiryAssertion' });

const tlsVersionAssertionSchema = z
  .strictObject({
    nodeId,
    subject: z.literal('tlsVersion'),
    predicate: numericPredicateSchema('tlsVersion', 'versions such as 1.2'),
  })
  .meta({ id: 'TlsVersionAssertion' });

const certificateIssuerAssertionSchema = z
  .strictObject({ nodeId, subject: z.literal('certificateIssuer'), predicate: anyPredicate })
  .meta({ id: 'CertificateIssuerAssertion' });

const certificateVerifiedAssertionSchema = z
  .strictObject({ nodeId, subject: z.literal('certificateVerified'), predicate: anyPredicate })
  .meta({ id: 'CertificateVerifiedAssertion' });

const textAssertionSchema = z
  .strictObject({ nodeId, subject: z.literal('text'), predicate: anyPredicate })
  .meta({ id: 'TextAssertion' });

export const assertionSchema = z
  .discriminatedUnion('subject', [
    statusAssertionSchema,
    headerAssertionSchema,
    bodyAssertionSchema,
    responseTimeAssertionSchema,
    textAssertionSchema,
    rcodeAssertionSchema,
    servingStatusAssertionSchema,
    certificateExpiryAssertionSchema,
    tlsVersionAssertionSchema,
    certificateIssuerAssertionSchema,
    certificateVerifiedAssertionSchema,
  ])
  .meta({ id: 'Assertion' });
export type Assertion = z.infer<typeof assertionSchema>;

/** The subjects that read a connection's TLS facts: any node type that can speak TLS takes them. */
const TLS_SUBJECTS = [
  'certificateExpiresInDays',
  'tlsVersion',
  'certificateIssuer',
  'certificateVerified',
] as const;

/** Which subjects an assertion may read from each node type: what the graph check holds nodes to. */
export const SUBJECTS_OF_NODE_TYPE: Readonly<Record<string, readonly Assertion['subject'][]>> = {
  HTTP_REQUEST: ['status', 'headers', 'body', 'responseTime', 'text', ...TLS_SUBJECTS],
  TCP_CONNECT: ['responseTime', 'text', ...TLS_SUBJECTS],
  DNS_QUERY: ['rcode', 'body', 'text', 'responseTime'],
  GRPC_HEALTH_CHECK: ['servingStatus', 'responseTime', ...TLS_SUBJECTS],
};
