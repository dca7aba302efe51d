import { VenueApiError, VenueClient, VenueConnectionError, type Query } from 'venue-api-client';
import type { McpSettings } from './settings.ts';

/**
 * The MCP server's only way to the data: the public HTTP API through venue-api-client, with
 * the agent's key, so scope, masking, limits, the change log and undo apply to the agent as
 * to any program.
 *
 * Retries, decided per tool (docs/agents.md "Retries"): a read is retried by the client on
 * no answer or a 5xx, and on a 429 or 503 whose Retry-After is at most a few seconds; a
 * write is sent once, so a 409, 412 or 429 reaches the agent, whose next step it is.
 */
const READ_RETRIES = 2;
const READ_RETRY_AFTER_SECONDS = 5;
const TIMEOUT_MS = 30_000;

export type ApiResult =
  | { kind: 'ok'; body: unknown; replayed: boolean }
  | { kind: 'problem'; error: VenueApiError }
  /** No usable answer: the API unreachable, too slow, or answering something that is not the API. */
  | { kind: 'failed'; message: string };

export interface Write {
  method: 'POST' | 'PATCH' | 'DELETE';
  /** Relative to the API's base, with a leading slash; path segments already encoded. */
  path: string;
  body?: unknown;
  idempotencyKey?: string;
  ifMatch?: string;
}

export class VenueApi {
  private readonly client: VenueClient;
  readonly baseUrl: string;

  constructor(settings: McpSettings) {
    this.baseUrl = settings.apiUrl;
    this.client = new VenueClient({
      apiKey: settings.apiKey,
      baseUrl: settings.apiUrl,
      maxRetries: READ_RETRIES,
      maxRetryAfterSeconds: READ_RETRY_AFTER_SECONDS,
      timeoutMs: TIMEOUT_MS,
    });
  }

  /** A GET, retried within the bounds above. */
  read(path: string, query?: Query): Promise<ApiResult> {
    return this.settle(`GET ${path}`, this.client.request({ method: 'GET', path, query }));
  }

  /** A write, sent once. */
  write(request: Write): Promise<ApiResult> {
    return this.settle(`${request.method} ${request.path}`, this.client.request({ ...request, maxRetries: 0 }));
  }

  private async settle(what: string, call: ReturnType<VenueClient['request']>): Promise<ApiResult> {
    try {
      const { headers, body } = await call;
      return { kind: 'ok', body, replayed: headers.get('idempotent-replayed') === 'true' };
    } catch (err) {
      if (err instanceof VenueApiError) return { kind: 'problem', error: err };
      if (err instanceof VenueConnectionError) {
        return { kind: 'failed', message: `The API at ${this.baseUrl} could not be reached (${reason(err.cause)}).` };
      }
      // A success whose body is not JSON: the URL points at something other than the API.
      return { kind: 'failed', message: `${what} answered with a body that is not JSON.` };
    }
  }
}

/** fetch's own message is "fetch failed"; the reason (ECONNREFUSED, a DNS error) is its cause. */
function reason(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer in ${TIMEOUT_MS / 1000} s`;
  const inner = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return inner?.code ?? inner?.message ?? (err instanceof Error ? err.message : String(err));
}
