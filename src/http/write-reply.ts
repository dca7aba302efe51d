import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ApiError, toProblem } from '../errors.ts';
import { JsonText } from '../resources/json-text.model.ts';
import type { StoredAnswer } from '../resources/writes/idempotency.model.ts';
import type { PlanWrite, WriteService } from '../resources/writes/write.pipeline.ts';
import { customerIdsIn } from './activity.ts';
import { actorOf } from './caller.ts';
import { sendJsonText } from './json-text.ts';

/** How a route shows a write's value: the body (a value, or JSON text sent as it is), and headers such as the ETag. */
export interface Presented {
  body: unknown;
  headers?: Record<string, string>;
}

export interface WriteRoute<I, T> {
  service: WriteService<I, T>;
  input: I;
  /** 200, or 201 for a create. */
  status: number;
  present(value: T): Presented;
  /** The write as one statement planned ahead, where the service has that form (write.pipeline.ts PlannedWrite). */
  plan?: PlanWrite<I, T>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/**
 * Runs a write through the pipeline and answers it. A POST's answer is rendered to text
 * inside the write's transaction, stored, and sent as that same text, so a replay is byte
 * for byte what the first request got (DECISIONS "Idempotency").
 */
export async function answerWrite<I, T>(
  request: FastifyRequest,
  reply: FastifyReply,
  route: WriteRoute<I, T>,
): Promise<FastifyReply> {
  const { writes, errorsUrl } = request.server;
  const actor = actorOf(request);
  const claim = request.idempotency;
  if (!claim) {
    const { body, headers } = route.present(await writes.run(actor, route.service, route.input, route.plan));
    reply.code(route.status).headers(headers ?? {});
    if (body instanceof JsonText) return sendJsonText(request, reply, body);
    request.sentCustomerIds = customerIdsIn(body);
    return reply.send(body);
  }
  // The route's own serialiser for this status, taken out here so the pipeline gets a plain function.
  const serialize = reply.getSerializationFunction(String(route.status)) ?? JSON.stringify;
  const outcome = await writes.runIdempotent(
    actor,
    route.service,
    route.input,
    {
      claim,
      answer: (value): StoredAnswer => {
        const { body, headers } = route.present(value);
        const text = body instanceof JsonText ? body.text : serialize(body);
        request.sentCustomerIds = body instanceof JsonText ? body.customerIds : customerIdsIn(body);
        return { status: route.status, contentType: JSON_TYPE, headers: headers ?? {}, body: text };
      },
      refusal: (err: ApiError): StoredAnswer => ({
        status: err.status,
        contentType: PROBLEM_TYPE,
        headers: err.options.headers ?? {},
        body: JSON.stringify(toProblem(err, errorsUrl, request.id)),
      }),
    },
    route.plan,
  );
  const { answer } = outcome;
  // The body is the stored one byte for byte, so its request_id is the first request's;
  // Original-Request (Stripe's name) says so beside this request's own Request-Id.
  if (outcome.replayed) {
    reply.header('Idempotent-Replayed', 'true').header('Original-Request', outcome.originalRequestId);
    // A replay sends the stored customer again: the activity count reads it back (replays are rare).
    if (answer.status < 300) request.sentCustomerIds = customerIdsIn(JSON.parse(answer.body));
  }
  return reply.code(answer.status).headers(answer.headers).type(answer.contentType).send(answer.body);
}
