import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RETRY_AFTER_SECONDS, UNAVAILABLE_DETAIL, unavailableReason } from '../db/unavailable.ts';
import { ApiError, invalid, toProblem, type FieldError } from '../errors.ts';
import { NOSNIFF } from './security-headers.ts';

/**
 * The one place an error becomes an answer: an RFC 9457 problem document. Anything that
 * is not an ApiError or a client error Fastify found is a 500 whose detail says nothing
 * of internals (DECISIONS "HTTP and errors").
 */
function sendProblem(reply: FastifyReply, err: ApiError, errorsUrl: string): FastifyReply {
  for (const [name, value] of Object.entries(err.options.headers ?? {})) reply.header(name, value);
  return reply
    .code(err.status)
    .type('application/problem+json')
    .send(toProblem(err, errorsUrl, reply.request.id));
}

function fieldErrors(error: FastifyError): FieldError[] {
  const context = error.validationContext ?? 'body';
  return (error.validation ?? []).map((v) => {
    const params = v.params as Record<string, unknown>;
    let path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (typeof params.additionalProperty === 'string') {
      path = path ? `${path}.${params.additionalProperty}` : params.additionalProperty;
      return { field: `${context === 'body' ? '' : `${context}.`}${path}`, message: 'is not a known field' };
    }
    if (typeof params.missingProperty === 'string')
      path = path ? `${path}.${params.missingProperty}` : params.missingProperty;
    return {
      field: `${context === 'body' ? '' : `${context}.`}${path || context}`,
      message: v.message ?? 'is not valid',
    };
  });
}

/** Fastify's own client errors (parsing, content type, size) mapped onto the catalogue. */
function fromFastify(error: FastifyError): ApiError | null {
  if (error.validation) {
    const errors = fieldErrors(error);
    const first = errors[0];
    return invalid(first ? `${first.field}: ${first.message}` : 'The request is not valid.', errors);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is over 64 KiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new ApiError('unsupported_media_type', 'Send the request body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalid('The body is empty but Content-Type says JSON; send a JSON object.');
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return new ApiError('payload_too_large', 'The request body is over 64 KiB.');
  if (status === 415) return new ApiError('unsupported_media_type', 'Send the request body as application/json.');
  if (status >= 400 && status < 500) {
    return invalid(error instanceof SyntaxError ? 'The body is not valid JSON.' : 'The request is not valid.');
  }
  return null;
}

/**
 * Errors the router raises before any hook runs (a URL it cannot decode, a path segment
 * past maxParamLength), answered as problems with the headers every answer carries.
 */
export function frameworkErrors(errorsUrl: string, version: string) {
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Request-Id', reply.request.id);
    reply.header('Cache-Control', 'no-store');
    reply.header('Service-Version', version);
    // No hook runs for these: the security header is set here (src/http/security-headers.ts).
    reply.header('X-Content-Type-Options', NOSNIFF);
    // An id longer than any id can be names no record: 404, as DECISIONS says for bad ids.
    const err =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiError('not_found', 'No such record.')
        : invalid('The request URL is not valid.');
    return sendProblem(reply, err, errorsUrl);
  };
}

export function installProblemHandlers(app: FastifyInstance, errorsUrl: string): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) return sendProblem(reply, error, errorsUrl);
    // No route matched, and Fastify refused the request before the not-found handler ran (a
    // QUERY without Content-Type): it is still a 404 or a 405, never a 400.
    if (request.is404) return noRoute(request, reply);
    const reason = unavailableReason(error);
    if (reason) {
      // The database cannot serve now (locked by another process, down, over its timeouts,
      // out of disk): the request earned no error, so 503 and a retry, never 500.
      request.log.warn({ reason, error: error.message }, 'the database could not serve the request; answered 503');
      return sendProblem(
        reply,
        new ApiError('service_unavailable', UNAVAILABLE_DETAIL[reason], {
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS[reason]) },
        }),
        errorsUrl,
      );
    }
    const mapped = fromFastify(error);
    if (mapped) return sendProblem(reply, mapped, errorsUrl);
    request.log.error({ err: error }, 'unexpected error');
    return sendProblem(
      reply,
      new ApiError('internal_error', `Something went wrong on our side. Quote ${request.id} when you report it.`),
      errorsUrl,
    );
  });

  // DECISIONS "HTTP and errors": a path some route has, asked with another method, is 405
  // with Allow; Fastify's router answers which methods it has for the path.
  const noRoute = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = app.supportedMethods.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      const allow = allowed.sort().join(', ');
      return sendProblem(
        reply,
        new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}; allowed: ${allow}.`, {
          headers: { Allow: allow },
        }),
        errorsUrl,
      );
    }
    return sendProblem(reply, new ApiError('not_found', `There is no endpoint ${request.method} ${path}.`), errorsUrl);
  };
  app.setNotFoundHandler(noRoute);
}
