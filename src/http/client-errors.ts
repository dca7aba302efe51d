import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, toProblem } from '../errors.ts';
import { CURRENT_VERSION, newRequestId } from './request-context.ts';
import { NOSNIFF } from './security-headers.ts';

/**
 * Answers Node's HTTP parser gives before a request reaches Fastify (its `clientError`):
 * headers over 16 KiB (431), a request not fully received within REQUEST_TIMEOUT_MS (408),
 * malformed HTTP (400). Fastify's default writes its own JSON; these are problem documents
 * from the one catalogue, with a request id, like every other answer. The connection is then
 * closed: after a framing error nothing more on it can be trusted.
 */
function problemFor(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'The request was not received in full in time; the connection is closed.');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('headers_too_large', 'The request line and headers are over 16 KiB.');
    default:
      return new ApiError('invalid_request', 'The request is not well-formed HTTP/1.1.');
  }
}

/** The socket's current response, when Node has already started it (then nothing more is written). */
function answerStarted(socket: Socket): boolean {
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return current?.headersSent === true;
}

export function clientErrorHandler(errorsUrl: string, log: () => FastifyBaseLogger) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has no one left to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const problem = problemFor(err);
    const requestId = newRequestId();
    log().info({ code: err.code, requestId, status: problem.status }, 'client error below the API');
    if (socket.writable && !answerStarted(socket)) {
      const body = JSON.stringify(toProblem(problem, errorsUrl, requestId));
      socket.write(
        [
          `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
          'Content-Type: application/problem+json; charset=utf-8',
          `Content-Length: ${Buffer.byteLength(body)}`,
          `Request-Id: ${requestId}`,
          'Cache-Control: no-store',
          `Service-Version: ${CURRENT_VERSION}`,
          `X-Content-Type-Options: ${NOSNIFF}`,
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
    }
    socket.destroy(err);
  };
}
