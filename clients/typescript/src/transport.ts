import { VenueApiError, VenueConnectionError, type ProblemDocument } from './errors.ts';
import { SERVICE_VERSION } from './generated/version.ts';

export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /** Per attempt, in milliseconds (default 30 s). */
  timeoutMs: number;
  /** A 429 whose Retry-After is longer than this is not waited for: it is thrown at once. */
  maxRetryAfterSeconds: number;
  fetch: typeof fetch;
  /** How the client waits; tests pass their own to avoid real delays. */
  sleep: (ms: number) => Promise<void>;
  /** Random number in [0, 1) for the backoff's jitter. */
  random: () => number;
  /** Makes an Idempotency-Key when the caller gives none. */
  newIdempotencyKey: () => string;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  idempotencyKey?: string;
  ifMatch?: string | number;
  signal?: AbortSignal;
  /** This call's retries, in place of the client's `maxRetries`: 0 leaves every decision to the caller. */
  maxRetries?: number;
}

/** An answer of the API that is not an error: its status, its headers and its JSON body. */
export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** The first retry waits about 0.5 s, then 1 s, 2 s, …, at most 8 s; jitter takes up to half off. */
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** A bare version is quoted; an ETag (weak or strong) and `*` (any version) are sent as they are. */
export function quoteIfMatch(value: string | number): string {
  const text = String(value).trim();
  return /^(W\/)?"/.test(text) || text === '*' ? text : `"${text}"`;
}

/** One API call with its retries, answering the success body. */
export async function request<T>(options: TransportOptions, req: RequestOptions): Promise<T> {
  return (await call<T>(options, req)).body;
}

/**
 * One API call with its retries. What is retried, up to `maxRetries` times:
 * - no answer (network error, timeout) and 5xx, with exponential backoff and jitter, for
 *   GET and POST only: a POST carries the same Idempotency-Key every time, so the server
 *   writes it once; a PATCH or DELETE may have been applied before its answer was lost.
 *   A 5xx with `Retry-After` (a 503) waits at least that long, or is thrown at once when it
 *   asks for longer than `maxRetryAfterSeconds`.
 * - 429, after `Retry-After` seconds (nothing was counted or written).
 * - 409 with `Retry-After` (the same Idempotency-Key still running), after it.
 */
export async function call<T>(options: TransportOptions, req: RequestOptions): Promise<ApiResponse<T>> {
  const url = new URL(
    req.path.replace(/^\//, ''),
    options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`,
  );
  for (const [name, value] of Object.entries(req.query ?? {})) {
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.apiKey}`,
    'service-version': SERVICE_VERSION,
    accept: 'application/json',
  };
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  if (req.method === 'POST') headers['idempotency-key'] = req.idempotencyKey ?? options.newIdempotencyKey();
  if (req.ifMatch !== undefined) headers['if-match'] = quoteIfMatch(req.ifMatch);
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  const replayable = req.method === 'GET' || req.method === 'POST';
  const maxRetries = Math.max(0, req.maxRetries ?? options.maxRetries);

  for (let attempt = 0; ; attempt++) {
    const retriesLeft = attempt < maxRetries;
    const backoff = () => {
      const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
      return ceiling / 2 + (ceiling / 2) * options.random();
    };
    let response: Response;
    try {
      response = await send(options, url, { method: req.method, headers, body }, req.signal);
    } catch (err) {
      if (req.signal?.aborted) throw err;
      if (!(retriesLeft && replayable)) {
        throw new VenueConnectionError(`${req.method} ${url.pathname} got no answer: ${String(err)}`, { cause: err });
      }
      await options.sleep(backoff());
      continue;
    }
    if (response.ok) return { status: response.status, headers: response.headers, body: (await response.json()) as T };

    const problem = (await response.json().catch(() => ({}))) as Partial<ProblemDocument>;
    const error = new VenueApiError(response.status, problem, response.headers);
    if (retriesLeft) {
      if ((response.status === 429 || response.status === 409) && error.retryAfter !== null) {
        if (error.retryAfter <= options.maxRetryAfterSeconds) {
          await options.sleep(error.retryAfter * 1000);
          continue;
        }
      } else if (response.status >= 500 && replayable) {
        if (error.retryAfter === null) {
          await options.sleep(backoff());
          continue;
        }
        if (error.retryAfter <= options.maxRetryAfterSeconds) {
          await options.sleep(Math.max(error.retryAfter * 1000, backoff()));
          continue;
        }
      }
    }
    throw error;
  }
}

/** One attempt, bounded by `timeoutMs` and by the caller's own signal. */
async function send(
  options: TransportOptions,
  url: URL,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
  signal: AbortSignal | undefined,
): Promise<Response> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  return options.fetch(url, { ...init, signal: combined });
}
