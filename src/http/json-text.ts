import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonText } from '../resources/json-text.model.ts';

/**
 * Sends JSON the database already wrote, naming the customers in it for the activity count
 * (src/http/activity.ts), so nothing parses the text back.
 */
export function sendJsonText(request: FastifyRequest, reply: FastifyReply, body: JsonText): FastifyReply {
  request.sentCustomerIds = body.customerIds;
  return reply.type('application/json; charset=utf-8').send(body.text);
}
