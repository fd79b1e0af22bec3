import type { MonitorNode } from '../contract/monitor-definition.js';
import type { DispatchedResponse } from './dispatched-request.js';
import { findJsonSyntaxFault } from './json-syntax-error.js';
import { ResponseBodyError } from './step-errors.js';

type ResponseFormat = Extract<MonitorNode, { type: 'HTTP_REQUEST' }>['response_format'];

export interface ReceivedBody {
  bytes: number;
  /** The raw body as UTF-8 text: what a `text` assertion reads. */
  text: string;
  /** The parsed body of a JSON response; undefined when the body is empty or not JSON. */
  json: unknown;
}

/** Reads and interprets a response body as the node's `response_format` asks; a mismatch fails the request. */
export async function receiveBody(
  response: DispatchedResponse,
  format: ResponseFormat,
  maxBytes: number,
): Promise<ReceivedBody> {
  // A larger body fails the request as soon as it is known to be larger (from content-length, or when the count
  // passes the limit) and the rest is not read: a runner serving many monitors must not buffer an unexpected download.
  const raw = await response.body.read(maxBytes);
  const text = raw.toString('utf8');
  const status = response.statusCode;
  if (format === 'NO_CONTENT' && raw.length > 0) {
    throw new ResponseBodyError(
      `expected no content (response_format NO_CONTENT), got ${raw.length} bytes with status ${status}`,
      raw.length,
    );
  }
  // An empty body (HEAD, 204) has nothing to parse; a `body` assertion then finds nothing.
  if (format !== 'JSON' || text.trim() === '') return { bytes: raw.length, text, json: undefined };
  try {
    const json: unknown = JSON.parse(text);
    return { bytes: raw.length, text, json };
  } catch {
    throw new ResponseBodyError(
      `the response (status ${status}) is not valid JSON: ${whereNotJson(text)}`,
      raw.length,
    );
  }
}

/** Where and why the body stops being JSON, never quoting it: JSON.parse's own message quotes the body. */
function whereNotJson(text: string): string {
  const fault = findJsonSyntaxFault(text);
  if (fault === undefined) return 'it does not parse';
  return `${fault.problem} at line ${fault.line}, column ${fault.column} (position ${fault.position})`;
}
