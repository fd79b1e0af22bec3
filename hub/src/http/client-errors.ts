import { maxHeaderSize, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from './errors.js';
import { statusOfCode } from './error-middleware.js';

/** Why Node's HTTP parser gave up on a request, as the error code and words of the JSON answer. */
function answerFor(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'headers_too_large',
        message: `request line and header fields exceed ${maxHeaderSize} bytes`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', message: 'chunk extensions are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'the request was not received in time' };
    default:
      return { code: 'validation_failed', message: 'malformed HTTP request' };
  }
}

function rawResponse(error: NodeJS.ErrnoException): string {
  const { code, message } = answerFor(error);
  const status = statusOfCode(code);
  const details = code === 'validation_failed' ? { details: [{ path: '', message }] } : {};
  const body = JSON.stringify({ error: message, code, ...details });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Node's own guard: an answer written while another response is under way would corrupt what the peer reads. */
function responseUnderWay(socket: Duplex): boolean {
  const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  return current?.headersSent === true;
}

/**
 * Requests that Node's HTTP parser refuses (header fields over --max-http-header-size, malformed request lines,
 * a request timeout) never reach Express, and Node's default answer has no body: answer them here in the common
 * error shape, then close the connection, as Node does.
 */
export function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable || responseUnderWay(socket)) {
      socket.destroy();
      return;
    }
    socket.end(rawResponse(error), () => socket.destroy());
  });
}
