import type { McpSettings } from './settings.ts';

/**
 * The MCP server's only way to the data: the public HTTP API, called with the agent's key,
 * so scope, masking, limits, the change log and undo apply to the agent as to any program.
 * Kept to this one file so the typed client (clients/typescript) can take its place later.
 */

/** The API version this client was written against, pinned as SDKs pin theirs (SPEC "Versioning"). */
export const SERVICE_VERSION = '2026-10-08';
const TIMEOUT_MS = 30_000;

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface ApiRequest {
  method: Method;
  /** Relative to the API's base, with a leading slash; path segments already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  ifMatch?: string;
}

/** An RFC 9457 problem document as the API answers it (SPEC "Errors"). */
export interface Problem {
  status: number;
  code: string;
  detail: string;
  request_id?: string;
  errors?: Array<{ field: string; message: string }>;
  limit?: string;
}

export type ApiResult =
  | { kind: 'ok'; status: number; body: unknown; replayed: boolean }
  | { kind: 'problem'; problem: Problem; retryAfter: number | null }
  /** No usable answer: the API unreachable, too slow, or answering something that is not the API. */
  | { kind: 'failed'; message: string };

export class VenueApi {
  constructor(private readonly settings: McpSettings) {}

  get baseUrl(): string {
    return this.settings.apiUrl;
  }

  async call(request: ApiRequest): Promise<ApiResult> {
    const url = new URL(`${this.settings.apiUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.settings.apiKey}`,
      'service-version': SERVICE_VERSION,
      accept: 'application/json',
      'user-agent': 'venue-api-mcp',
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
    if (request.ifMatch) headers['if-match'] = request.ifMatch;

    let response: Response;
    try {
      response = await fetch(url, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const reason =
        err instanceof Error && err.name === 'TimeoutError' ? `no answer in ${TIMEOUT_MS / 1000} s` : cause(err);
      return { kind: 'failed', message: `The API at ${this.settings.apiUrl} could not be reached (${reason}).` };
    }
    return read(response, `${request.method} ${url.pathname}`);
  }
}

async function read(response: Response, what: string): Promise<ApiResult> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    return { kind: 'failed', message: `${what} answered HTTP ${response.status} with a body that is not JSON.` };
  }
  if (response.ok) {
    return {
      kind: 'ok',
      status: response.status,
      body,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    };
  }
  if (!isProblem(body)) {
    return { kind: 'failed', message: `${what} answered HTTP ${response.status} without a problem document.` };
  }
  const retryAfter = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
  return { kind: 'problem', problem: body, retryAfter: Number.isFinite(retryAfter) ? retryAfter : null };
}

function isProblem(body: unknown): body is Problem {
  if (body === null || typeof body !== 'object') return false;
  const p = body as Record<string, unknown>;
  return typeof p.code === 'string' && typeof p.detail === 'string' && typeof p.status === 'number';
}

/** fetch's own message is "fetch failed"; the reason (ECONNREFUSED, a DNS error) is its cause. */
function cause(err: unknown): string {
  const inner = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return inner?.code ?? inner?.message ?? (err instanceof Error ? err.message : String(err));
}
