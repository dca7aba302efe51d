/**
 * The one catalogue of error codes (SPEC "Errors", DECISIONS "HTTP and errors").
 * Every problem+json answer is built from an ApiError; nothing matches on messages.
 */
export const ERROR_CATALOGUE = {
  invalid_request: {
    status: 400,
    title: 'The request is not valid',
    hint: 'A field, query parameter, header or body is malformed or unknown; `errors` names each one. Fix it and retry.',
  },
  unsupported_version: {
    status: 400,
    title: 'The Service-Version is not supported',
    hint: 'Send `Service-Version` with an accepted date (the detail lists them), or leave it out for the current one.',
  },
  unauthorized: {
    status: 401,
    title: 'A valid API key is required',
    hint: 'Send `Authorization: Bearer <API_KEY>` with a key that exists, has not expired and was not revoked.',
  },
  forbidden: {
    status: 403,
    title: 'This key may not do this',
    hint: 'The key lacks the access (read only, a restricted collection or write, a live key on test data, marketing consent). Stop and tell a person; do not look for another way round.',
  },
  key_paused: {
    status: 403,
    title: 'This key is paused',
    hint: 'The key was paused for unusual activity. A person who manages API keys must resume it; retrying does not help.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    hint: 'No such endpoint, or no record with that id that this key can see (another workspace, the other mode, another object type).',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    hint: 'The path exists but not with this method; the `Allow` header lists the methods it has.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    hint: 'The change clashes with the data (an email another customer has, an email or phone that cannot change), or a request with the same Idempotency-Key is still running.',
  },
  payload_too_large: {
    status: 413,
    title: 'The request body is too large',
    hint: 'Bodies are limited to 64 KiB.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'The request body must be JSON',
    hint: 'Send the body with `Content-Type: application/json`, in UTF-8 (a `charset` other than utf-8 is refused).',
  },
  idempotency_mismatch: {
    status: 422,
    title: 'The Idempotency-Key was used for another request',
    hint: 'An Idempotency-Key may be reused only to retry the same method, path and body; use a new key for a new request.',
  },
  request_timeout: {
    status: 408,
    title: 'The request took too long to arrive',
    hint: "The whole request (headers and body) must arrive within the server's request timeout (30 seconds unless configured otherwise). Send it again on a new connection.",
  },
  precondition_failed: {
    status: 412,
    title: 'The record changed since it was read',
    hint: 'The If-Match version is stale. Read the customer again, check your change still makes sense, then retry with the new version.',
  },
  precondition_required: {
    status: 428,
    title: 'A required header is missing',
    hint: 'Every POST needs an `Idempotency-Key` header.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    hint: 'A limit was reached; `limit` names it. Wait `Retry-After` seconds, then retry.',
  },
  headers_too_large: {
    status: 431,
    title: 'The request headers are too large',
    hint: 'The request line and headers together are limited to 16 KiB. Send fewer or shorter headers.',
  },
  internal_error: {
    status: 500,
    title: 'Something went wrong on our side',
    hint: 'Not your fault. Retry later; if it persists, report it with the `request_id`.',
  },
  service_unavailable: {
    status: 503,
    title: 'The service is busy',
    hint: 'The request could not be served just now (the database was locked by another process, unreachable, over its time limits or out of disk, or this server was shutting down). Wait `Retry-After` seconds, then retry; a POST with the same Idempotency-Key.',
  },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export interface FieldError {
  field: string;
  message: string;
}

export interface ApiErrorOptions {
  errors?: FieldError[];
  /** Name of the limit reached, on a 429 (DECISIONS "HTTP and errors"). */
  limit?: string;
  /** Extra response headers: Retry-After, Allow, WWW-Authenticate. */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string;
  readonly options: ApiErrorOptions;

  constructor(code: ErrorCode, detail: string, options: ApiErrorOptions = {}) {
    super(detail);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.detail = detail;
    this.options = options;
  }
}

export const notFound = (what = 'No such record.') => new ApiError('not_found', what);
export const invalid = (detail: string, errors?: FieldError[]) =>
  new ApiError('invalid_request', detail, errors ? { errors } : {});
export const forbidden = (detail: string) => new ApiError('forbidden', detail);
export const conflict = (detail: string) => new ApiError('conflict', detail);

/**
 * A problem lists at most this many field errors (and how many there were in all), so a
 * body of thousands of unknown fields is not answered with a document as large again.
 */
const MAX_FIELD_ERRORS = 20;

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  request_id: string;
  errors?: FieldError[];
  /** Present when `errors` was cut to MAX_FIELD_ERRORS: how many there were. */
  errors_total?: number;
  limit?: string;
}

export function toProblem(err: ApiError, errorsUrl: string, requestId: string): Problem {
  const problem: Problem = {
    type: `${errorsUrl}#${err.code}`,
    title: ERROR_CATALOGUE[err.code].title,
    status: err.status,
    code: err.code,
    detail: err.detail,
    request_id: requestId,
  };
  const errors = err.options.errors;
  if (errors) {
    problem.errors = errors.slice(0, MAX_FIELD_ERRORS);
    if (errors.length > MAX_FIELD_ERRORS) problem.errors_total = errors.length;
  }
  if (err.options.limit) problem.limit = err.options.limit;
  return problem;
}

/**
 * A conflict that a plain retry may resolve (the same Idempotency-Key still running, a
 * customer that kept changing): never stored as an idempotent answer. `Retry-After: 1`
 * tells a client (venue-api-client among them) this 409 is worth retrying, unlike a taken
 * email, without it parsing `detail`.
 */
export class TransientConflict extends ApiError {
  constructor(detail: string) {
    super('conflict', detail, { headers: { 'Retry-After': '1' } });
  }
}
