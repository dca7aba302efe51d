/** One field the API found wrong, on a 400 `invalid_request`. */
export interface FieldError {
  field: string;
  message: string;
}

/** The problem document (RFC 9457) every error answer of the API is. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  request_id: string;
  errors?: FieldError[];
  limit?: string;
}

/**
 * An answer of the API that is an error: branch on `code`, quote `requestId` when you
 * report it. On a 429, `limit` names the limit reached and `retryAfter` is the seconds to
 * wait (the client has already waited and retried up to `maxRetries` times).
 */
export class VenueApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly type: string;
  readonly requestId: string | null;
  readonly errors: FieldError[];
  readonly limit: string | null;
  /** Seconds from the `Retry-After` header (429, and a 409 worth retrying); null without one. */
  readonly retryAfter: number | null;

  constructor(status: number, problem: Partial<ProblemDocument>, headers: Headers) {
    const code = problem.code ?? (status >= 500 ? 'internal_error' : 'unknown_error');
    const detail = problem.detail ?? `The API answered ${status}.`;
    super(`${code}: ${detail}`);
    this.name = 'VenueApiError';
    this.status = status;
    this.code = code;
    this.title = problem.title ?? '';
    this.detail = detail;
    this.type = problem.type ?? '';
    this.requestId = problem.request_id ?? headers.get('request-id');
    this.errors = problem.errors ?? [];
    this.limit = problem.limit ?? null;
    this.retryAfter = retryAfterSeconds(headers);
  }
}

/** No answer came: the connection failed or the request timed out, after every retry. */
export class VenueConnectionError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'VenueConnectionError';
  }
}

/** `Retry-After` as whole seconds (the API sends seconds; an HTTP date is read too). */
export function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
