import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ActivityTracker } from '../jobs/activity-tracker.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** What live keys did, buffered for the unusual-activity check. */
    activity: ActivityTracker;
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

function liveActor(request: FastifyRequest) {
  const actor = request.actor;
  return actor?.livemode ? actor : null;
}

/**
 * Feeds the tracker (DECISIONS "Unusual activity": live keys only). Customer reads answer
 * JSON text the database wrote and name their customers (json-text.ts); preSerialization
 * sees any other answer's object before it becomes JSON, so spotting customers costs no
 * parsing. Writes (at most 60 a minute per key) answer through the idempotency store as
 * ready-made JSON, so onSend parses those. onResponse counts every request a live key got
 * past auth and the limits. The hooks take callbacks: nothing in them awaits, and a
 * callback hook costs Fastify less than an async one.
 */
export const activityTracking = fp(async (app: FastifyInstance, options: { tracker: ActivityTracker }) => {
  const { tracker } = options;
  const seen = new WeakSet<FastifyRequest>();
  app.decorate('activity', tracker);
  app.decorateRequest('sentCustomerIds', null);
  app.addHook('preSerialization', (request, reply, payload, done) => {
    const actor = liveActor(request);
    if (actor && reply.statusCode < 300) {
      seen.add(request);
      tracker.customersSent(actor.id, actor.workspaceId, customerIdsIn(payload));
    }
    done(null, payload);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const actor = liveActor(request);
    if (actor && reply.statusCode < 300) {
      if (request.sentCustomerIds) {
        tracker.customersSent(actor.id, actor.workspaceId, request.sentCustomerIds);
      } else if (
        request.routeOptions.config.access?.kind === 'write' &&
        typeof payload === 'string' &&
        !seen.has(request)
      ) {
        try {
          tracker.customersSent(actor.id, actor.workspaceId, customerIdsIn(JSON.parse(payload)));
        } catch {
          // Not JSON: nothing of a customer's in it.
        }
      }
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    // DECISIONS "Limits": a request refused with 429 consumes nothing, so it is no activity.
    if (request.key && reply.statusCode !== 429) tracker.used(request.key.id);
    const actor = reply.statusCode === 429 ? null : liveActor(request);
    if (actor) tracker.request(actor.id, actor.workspaceId);
    done();
  });
  app.addHook('onClose', async () => tracker.stop());
});
