import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ActivityTracker } from '../jobs/activity-tracker.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** What live keys did, buffered for the unusual-activity check. */
    activity: ActivityTracker;
  }
  interface FastifyRequest {
    /** The customers the answer holds, named by the code that sends it (json-text.ts, write-reply.ts). */
    sentCustomerIds: readonly string[] | null;
  }
}

interface Sent {
  object?: unknown;
  id?: unknown;
  deleted?: unknown;
  data?: unknown;
}

/** The customer ids in an answer: a customer, or a list of customers (reads and writes). */
export function customerIdsIn(payload: unknown): string[] {
  if (payload === null || typeof payload !== 'object') return [];
  const p = payload as Sent;
  if (p.object === 'customer') return typeof p.id === 'string' && p.deleted !== true ? [p.id] : [];
  if (p.object !== 'list' || !Array.isArray(p.data)) return [];
  const ids: string[] = [];
  for (const item of p.data as Sent[]) {
    if (item?.object !== 'customer') return ids; // a list holds one kind of record
    if (typeof item.id === 'string') ids.push(item.id);
  }
  return ids;
}

/**
 * Feeds the tracker (DECISIONS "Unusual activity": live keys only), once a request is
 * answered: the request itself, and the customers its answer sent, which the code that sent
 * them named (sendJsonText for reads, answerWrite for writes).
 */
export const activityTracking = fp(async (app: FastifyInstance, options: { tracker: ActivityTracker }) => {
  const { tracker } = options;
  app.decorate('activity', tracker);
  app.decorateRequest('sentCustomerIds', null);
  app.addHook('onResponse', (request, reply, done) => {
    noteActivity(tracker, request, reply.statusCode);
    done();
  });
  app.addHook('onClose', async () => tracker.stop());
});

function noteActivity(tracker: ActivityTracker, request: FastifyRequest, status: number): void {
  // DECISIONS "Limits": a request refused with 429 consumes nothing, so it is no activity.
  if (!request.key || status === 429) return;
  tracker.used(request.key.id);
  const actor = request.actor;
  if (!actor?.livemode) return;
  tracker.request(actor.id, actor.workspaceId);
  if (request.sentCustomerIds && status < 300)
    tracker.customersSent(actor.id, actor.workspaceId, request.sentCustomerIds);
}
