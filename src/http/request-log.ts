import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { RequestLogWriter } from '../jobs/request-log-writer.ts';
import type { Clock } from '../lib/time.ts';
import { keepsBodies, keptBody, keptPath } from '../resources/request-log/request-log.model.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The request log's writer: `flush()` writes what is buffered now (tests, a closing server). */
    requestLog: RequestLogWriter;
  }
  interface FastifyRequest {
    /** The answer's body as sent, when the request log keeps it. */
    answerText: string | null;
  }
}

/**
 * Records every request that carried a valid key in the request log (DECISIONS "Request
 * log"), whatever its answer: the answer's text is taken as it is sent, the row is made once
 * the answer is done, and the writer puts it in the database later, in a batch.
 */
export const requestLogging = fp(async (app: FastifyInstance, options: { writer: RequestLogWriter; clock: Clock }) => {
  const { writer, clock } = options;
  app.decorate('requestLog', writer);
  app.decorateRequest('answerText', null);
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.loggedKey && keepsBodies(request.method, reply.statusCode)) {
      if (typeof payload === 'string') request.answerText = payload;
      else if (Buffer.isBuffer(payload)) request.answerText = payload.toString('utf8');
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.loggedKey) writer.add(rowOf(request, reply, clock()));
    done();
  });
  writer.start();
  app.addHook('onClose', async () => writer.stop());
});

function rowOf(request: FastifyRequest, reply: FastifyReply, now: number) {
  const key = request.loggedKey!;
  const status = reply.statusCode;
  const bodies = keepsBodies(request.method, status);
  const sent = bodies ? keptBody(request.bodyText, key.contactsMasked) : { text: null, truncated: false };
  const answer = bodies ? keptBody(request.answerText, false) : { text: null, truncated: false };
  const version = reply.getHeader('service-version');
  const durationMs = Math.round(reply.elapsedTime);
  return {
    id: request.id,
    workspace_id: key.workspaceId,
    key_id: key.id,
    method: request.method,
    path: keptPath(request.url, key.contactsMasked).slice(0, 2048),
    status,
    code: status >= 400 ? codeOf(request.answerText) : null,
    duration_ms: durationMs,
    ip: request.ip,
    user_agent: (request.headers['user-agent'] ?? '').slice(0, 512) || null,
    version: typeof version === 'string' ? version : null,
    request_body: sent.text,
    response_body: answer.text,
    truncated: sent.truncated || answer.truncated ? 1 : 0,
    created_at: now - durationMs,
  };
}

/** A problem's `code` (every error answer is a problem+json document). */
function codeOf(answer: string | null): string | null {
  if (answer === null) return null;
  try {
    const code = (JSON.parse(answer) as { code?: unknown }).code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}
