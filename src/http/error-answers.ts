import { ERROR_CATALOGUE, type ErrorCode } from '../errors.ts';
import { groupBy } from '../lib/group-by.ts';
import type { RouteAccess } from './types.ts';

/** What the reference needs to know of an operation to say how it can fail. */
export interface Operation {
  method: string;
  /** Fastify's pattern: `/customers/:id`. */
  url: string;
  access: Exclude<RouteAccess, { kind: 'public' }>;
  /** Whether it reads a JSON body. */
  body: boolean;
  /** The request headers its schema declares, lower case (`if-match`). */
  headers: readonly string[];
}

/** One code an operation can answer, and when. */
export interface ErrorAnswer {
  code: ErrorCode;
  when: string;
}

/** Every operation a key calls: a key bound to addresses (`allowed_ips`) used from elsewhere. */
const ELSEWHERE = 'The key is used from an address outside its `allowed_ips`.';

function forbiddenWhen(access: Operation['access']): string | null {
  if (access.kind === 'any-key') return ELSEWHERE;
  if (access.kind === 'read')
    return `A restricted key without \`${access.collection}\` in its \`can_read\`. ${ELSEWHERE}`;
  const { permission } = access;
  const reasons = [`a read only key, or a restricted key without \`${permission}\` in its \`can_write\``];
  if (permission.startsWith('customers.')) reasons.push('or without `customers` in its `can_read`');
  if (permission === 'customers.create' || permission === 'customers.update')
    reasons.push('or `marketing_consent: true` in the body');
  if (permission === 'test_data.delete') reasons.push('or a live key');
  const text = reasons.join(', ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}. ${ELSEWHERE}`;
}

function notFoundWhen({ url }: Operation): string | null {
  if (!url.includes('/:')) return null;
  const record = 'No record with that id that this key can see (another workspace, the other mode, another type)';
  if (url.includes('/tags')) return `${record}, or no such tag in the workspace.`;
  if (url.includes('/lists')) return `${record}, or no such list in the workspace.`;
  return `${record}.`;
}

function conflictWhen({ method, url }: Operation): string | null {
  const reasons: string[] = [];
  if (method === 'POST' && url === '/customers') reasons.push('Another customer has this email.');
  if (method === 'PATCH' && url === '/customers/:id')
    reasons.push('Another customer has this email, or the email or phone is set and cannot be changed or cleared.');
  if (method === 'POST')
    reasons.push('A request with this `Idempotency-Key` is still running: retry it after `Retry-After` seconds.');
  return reasons.length > 0 ? reasons.join(' ') : null;
}

/**
 * The error answers an operation can give, from the request's way through the checks
 * (src/app.ts registers them in this order) and what its route reads: every keyed
 * operation can meet the version and request-head checks, auth and the limits; an id in
 * the path can name nothing; a write has its access rules; a POST its Idempotency-Key; a
 * body its size and type; an If-Match its version. The OpenAPI document lists these by
 * status, and every HTTP test checks its answers against them (test/helpers/openapi-check.ts).
 */
function errorAnswers(op: Operation): ErrorAnswer[] {
  const read = ['query parameter', 'header', ...(op.body ? ['body field'] : [])];
  const answers: (ErrorAnswer | null)[] = [
    {
      code: 'invalid_request',
      when: `A ${read.slice(0, -1).join(', ')} or ${read.at(-1)} is malformed or unknown; \`errors\` names each.`,
    },
    {
      code: 'unsupported_version',
      when: '`Service-Version` is not a version this API accepts; `detail` lists those it does.',
    },
    { code: 'unauthorized', when: 'The key is missing, malformed, unknown, expired or revoked.' },
    { code: 'key_paused', when: 'The key was paused for unusual activity: a person must resume it.' },
  ];
  const forbidden = forbiddenWhen(op.access);
  answers.push(forbidden ? { code: 'forbidden', when: forbidden } : null);
  const notFound = notFoundWhen(op);
  answers.push(notFound ? { code: 'not_found', when: notFound } : null);
  const conflict = conflictWhen(op);
  answers.push(conflict ? { code: 'conflict', when: conflict } : null);
  if (op.headers.includes('if-match'))
    answers.push({
      code: 'precondition_failed',
      when: '`If-Match` names a version the customer no longer has; nothing was written.',
    });
  if (op.body)
    answers.push(
      { code: 'payload_too_large', when: 'The body is over 64 KiB.' },
      { code: 'unsupported_media_type', when: 'The body is not `application/json` in UTF-8.' },
    );
  if (op.method === 'POST' && op.access.kind === 'write')
    answers.push(
      {
        code: 'idempotency_mismatch',
        when: 'This `Idempotency-Key` was used for another method, path or body.',
      },
      { code: 'precondition_required', when: 'The `Idempotency-Key` header is missing.' },
    );
  answers.push(
    { code: 'rate_limited', when: 'A limit was reached: `limit` names it; wait `Retry-After` seconds.' },
    { code: 'internal_error', when: 'Something failed on our side; quote `request_id` when you report it.' },
    {
      code: 'service_unavailable',
      when: 'The database could not serve just now, or the server is shutting down; retry after `Retry-After` seconds.',
    },
  );
  return answers.filter((a): a is ErrorAnswer => a !== null);
}

/** The same answers grouped by HTTP status, in status order. */
export function errorAnswersByStatus(op: Operation): Map<number, ErrorAnswer[]> {
  const sorted = [...errorAnswers(op)].sort((a, b) => ERROR_CATALOGUE[a.code].status - ERROR_CATALOGUE[b.code].status);
  return groupBy(sorted, (answer) => ERROR_CATALOGUE[answer.code].status);
}
