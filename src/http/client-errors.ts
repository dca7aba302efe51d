import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

/** Each connection's answers not yet closed, from the server's public 'request' event. */
const answers = new WeakMap<Socket, Set<ServerResponse>>();

/** Follows the server's answers, so that a client error knows whether one is under way. */
export function followAnswers(server: Server): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const open = answers.get(req.socket) ?? new Set<ServerResponse>();
    answers.set(req.socket, open);
    open.add(res);
    res.once('close', () => open.delete(res));
  });
}

/** Whether an answer on the socket has begun and not all of it has gone out (then nothing more is written). */
function answerStarted(socket: Socket): boolean {
  for (const res of answers.get(socket) ?? []) if (res.headersSent && !res.writableFinished) return true;
  return false;
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
