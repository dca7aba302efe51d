import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonText } from '../resources/json-text.model.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The customers an answer sent as JSON text holds (activity.ts counts them). */
    sentCustomerIds: readonly string[] | null;
  }
}

/**
 * Sends JSON the database already wrote. A string with a JSON content type skips the
 * route's serialiser (and preSerialization), so the customers in it are named here.
 */
export function sendJsonText(request: FastifyRequest, reply: FastifyReply, body: JsonText): FastifyReply {
  request.sentCustomerIds = body.customerIds;
  return reply.type('application/json; charset=utf-8').send(body.text);
}
