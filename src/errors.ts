/**
 * The one catalogue of error codes (SPEC "Errors", DECISIONS "HTTP and errors").
 * Every problem+json answer is built from an ApiError; nothing matches on messages.
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, title: 'The request is not valid' },
  unsupported_version: { status: 400, title: 'The Service-Version is not supported' },
  unauthorized: { status: 401, title: 'A valid API key is required' },
  forbidden: { status: 403, title: 'This key may not do this' },
  key_paused: { status: 403, title: 'This key is paused' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body must be JSON' },
  idempotency_mismatch: { status: 422, title: 'The Idempotency-Key was used for another request' },
  precondition_failed: { status: 412, title: 'The record changed since it was read' },
  precondition_required: { status: 428, title: 'A required header is missing' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Something went wrong on our side' },
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

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  request_id: string;
  errors?: FieldError[];
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
  if (err.options.errors) problem.errors = err.options.errors;
  if (err.options.limit) problem.limit = err.options.limit;
  return problem;
}
