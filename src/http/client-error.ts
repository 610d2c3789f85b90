import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { envelope } from './errors.js';

/** What Node's HTTP parser refuses before the app sees a request, as the API's own errors. */
function parserError(err: NodeJS.ErrnoException): ApiError {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError('headers_too_large', 'The request headers are larger than 16 KiB; send a shorter Authorization header and fewer or shorter headers.');
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError('request_timeout', 'The request was not received completely in time; send it again.');
  }
  return new ApiError('invalid_request', 'The request is not valid HTTP/1.1.');
}

/**
 * Answers requests that Node's HTTP parser refuses (headers too large, malformed request lines,
 * timeouts) with the error envelope and a request id, like every other response, instead of
 * Node's bare status line. The connection is closed: the parser cannot continue on it.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const apiError = parserError(err);
  const requestId = newId('req');
  const body = JSON.stringify(envelope(apiError, requestId));
  socket.end(
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}
