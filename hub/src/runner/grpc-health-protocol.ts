import { ProtocolAnswerError } from './step-errors.js';

// grpc.health.v1 on the wire, by hand: the two messages are one field each, and a client library of its own
// (grpc-js) would resolve and connect by itself, where the egress policy cannot see the address
// (docs/adr/0032-protocol-checks.md).
//
//   message HealthCheckRequest { string service = 1; }
//   message HealthCheckResponse { ServingStatus status = 1; }   // UNKNOWN 0, SERVING 1, NOT_SERVING 2, SERVICE_UNKNOWN 3

export const HEALTH_CHECK_PATH = '/grpc.health.v1.Health/Check';
const SERVING_STATUSES = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;
/** Answers larger than this are not a HealthCheckResponse. */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** gRPC status code names (grpc/doc/statuscodes.md), for messages. */
export const GRPC_CODES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A HealthCheckRequest in a gRPC length-prefixed message (uncompressed). */
export function encodeHealthCheckRequest(service: string): Buffer {
  const name = Buffer.from(service, 'utf8');
  const message =
    name.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a]), varint(name.length), name]);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

function readVarint(bytes: Buffer, start: number): { value: number; next: number } {
  let value = 0;
  for (let offset = start, shift = 0; offset < bytes.length && shift < 35; offset += 1, shift += 7) {
    const byte = bytes.readUInt8(offset);
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return { value, next: offset + 1 };
  }
  throw new ProtocolAnswerError('the HealthCheckResponse has a malformed varint', 'http');
}

/** The serving status of the first length-prefixed HealthCheckResponse in `body`; unknown fields are skipped. */
export function decodeHealthCheckResponse(body: Buffer): string {
  if (body.length < 5) throw new ProtocolAnswerError('the answer has no gRPC message', 'http');
  if (body[0] !== 0)
    throw new ProtocolAnswerError('the answer is compressed, which the check did not ask for', 'http');
  const length = body.readUInt32BE(1);
  if (length > MAX_MESSAGE_BYTES || body.length < 5 + length)
    throw new ProtocolAnswerError(`the gRPC message of ${length} bytes is cut or too large`, 'http');
  const message = body.subarray(5, 5 + length);
  let status = 0; // proto3: an absent field is its zero value, UNKNOWN
  for (let offset = 0; offset < message.length;) {
    const tag = readVarint(message, offset);
    const field = Math.floor(tag.value / 8);
    const wireType = tag.value % 8;
    offset = tag.next;
    if (wireType === 0) {
      const read = readVarint(message, offset);
      if (field === 1) status = read.value;
      offset = read.next;
    } else if (wireType === 2) {
      const read = readVarint(message, offset);
      offset = read.next + read.value;
    } else if (wireType === 1 || wireType === 5) {
      offset += wireType === 1 ? 8 : 4;
    } else {
      throw new ProtocolAnswerError(`the HealthCheckResponse has a field of wire type ${wireType}`, 'http');
    }
  }
  return SERVING_STATUSES[status] ?? `UNKNOWN_${status}`;
}
