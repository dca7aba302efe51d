import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Storage } from '../db/index.ts';
import type { IdempotencyKeyTable, Queryable } from '../db/schema.ts';
import { runWrite, TransientConflict, type WriteHooks } from '../db/write-tx.ts';
import { ApiError, invalid, toProblem } from '../errors.ts';
import type { Clock } from '../lib/time.ts';
import {
  dropExpired,
  findAnswer,
  fingerprint,
  saveAnswer,
  type IdempotencyScope,
  type StoredAnswer,
} from './idempotency.store.ts';

/**
 * Idempotency-Key on every POST (SPEC "Rules common to all endpoints" 4, DECISIONS
 * "Idempotency"). The answer is stored in the same transaction as the write it answers,
 * so a crash leaves either both or neither. While a request runs, its key is held: in
 * this process by a set, across processes by a transaction lock (PostgreSQL advisory
 * lock; SQLite's write transactions never overlap). A duplicate that finds the key held
 * gets 409; one that comes after gets the stored answer, byte for byte.
 */
export interface IdempotencyOptions {
  storage: Storage;
  clock: Clock;
  errorsUrl: string;
}

interface Idempotent {
  scope: IdempotencyScope;
  options: IdempotencyOptions;
  inFlight: Set<string>;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: Idempotent | null;
  }
}

export const MAX_IDEMPOTENCY_KEY = 255;

/** "Still running": never stored, as the first request's own answer is still to come. */
class InFlight extends TransientConflict {
  constructor() {
    super('A request with this Idempotency-Key is still running; retry after it has been answered.');
  }
}

/** The key's answer was stored meanwhile (by another process): replay it. */
class Replay extends Error {
  constructor(readonly row: IdempotencyKeyTable) {
    super('replay');
  }
}

export const idempotency = fp(async (app: FastifyInstance, options: IdempotencyOptions) => {
  const inFlight = new Set<string>();
  app.decorateRequest('idempotency', null);
  // Before body validation: a POST without its key is told so first (428).
  app.addHook('preValidation', async (request) => {
    const scope = request.scope;
    if (request.method !== 'POST' || request.routeOptions.config.access?.kind !== 'write' || !scope) return;
    const key = request.headers['idempotency-key'];
    if (key === undefined) {
      throw new ApiError(
        'precondition_required',
        'Every POST needs an Idempotency-Key header (up to 255 characters; reuse it only to retry the same request).',
      );
    }
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
      throw invalid(`Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters.`, [
        { field: 'Idempotency-Key', message: `must be 1 to ${MAX_IDEMPOTENCY_KEY} characters` },
      ]);
    }
    const path = request.url.split('?')[0]!;
    request.idempotency = {
      scope: { keyId: scope.key.id, key, workspaceId: scope.workspaceId, fingerprint: fingerprint('POST', path, request.body), requestId: request.id },
      options,
      inFlight,
    };
  });
});

export interface Presented {
  body: unknown;
  headers?: Record<string, string>;
}

function replay(reply: FastifyReply, call: Idempotent, row: IdempotencyKeyTable): FastifyReply {
  if (row.fingerprint !== call.scope.fingerprint) {
    throw new ApiError(
      'idempotency_mismatch',
      'This Idempotency-Key was used for another request (method, path or body); use a new key for a new request.',
    );
  }
  // The body is the stored one byte for byte, so its request_id is the first request's;
  // Original-Request (Stripe's name) says so beside this request's own Request-Id.
  return send(reply.header('Idempotent-Replayed', 'true').header('Original-Request', row.request_id), {
    status: row.status_code,
    contentType: row.content_type,
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: row.body,
  });
}

function send(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).type(answer.contentType).send(answer.body);
}

/** Which failures are the request's own answer, kept like a success (DECISIONS "Idempotency"). */
function storable(err: unknown): err is ApiError {
  if (!(err instanceof ApiError) || err instanceof TransientConflict) return false;
  return err.status >= 400 && err.status < 500 && err.code !== 'invalid_request';
}

/**
 * Runs a write and answers it. On a POST the write gets hooks that claim the key first
 * and store the answer last, inside its own transaction.
 */
export async function sendWrite<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  write: (hooks: WriteHooks<T>) => Promise<T>,
  present: (value: T) => Presented,
): Promise<FastifyReply> {
  const call = request.idempotency;
  if (!call) {
    const { body, headers } = present(await write({}));
    return reply.code(status).headers(headers ?? {}).send(body);
  }
  const { storage, clock, errorsUrl } = call.options;
  const { scope } = call;
  const lock = `idempotency\n${scope.keyId}\n${scope.key}`;
  if (call.inFlight.has(lock)) throw new InFlight();
  call.inFlight.add(lock);
  try {
    const earlier = await findAnswer(storage.db, scope, clock());
    if (earlier) return replay(reply, call, earlier);
    const claim = async (tx: Queryable) => {
      if (!(await storage.engine.tryTransactionLock(tx, lock))) throw new InFlight();
      const now = clock();
      await dropExpired(tx, scope, now);
      const row = await findAnswer(tx, scope, now);
      if (row) throw new Replay(row);
    };
    let answer: StoredAnswer;
    try {
      await write({
        begin: claim,
        complete: async (tx, value) => {
          const { body, headers } = present(value);
          reply.code(status);
          answer = { status, contentType: 'application/json; charset=utf-8', headers: headers ?? {}, body: String(reply.serialize(body)) };
          await saveAnswer(tx, scope, answer, clock());
        },
      });
    } catch (err) {
      if (err instanceof Replay) return replay(reply, call, err.row);
      if (!storable(err)) throw err;
      // The write rolled back; its refusal is stored on its own, under the same claim.
      const problem = toProblem(err, errorsUrl, request.id);
      answer = {
        status: err.status,
        contentType: 'application/problem+json; charset=utf-8',
        headers: err.options.headers ?? {},
        body: JSON.stringify(problem),
      };
      try {
        await runWrite(storage.db, { begin: claim }, (tx) => saveAnswer(tx, scope, answer, clock()));
      } catch (again) {
        if (again instanceof Replay) return replay(reply, call, again.row);
        throw again;
      }
    }
    return send(reply, answer!);
  } finally {
    call.inFlight.delete(lock);
  }
}
