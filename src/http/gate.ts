import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Every check a request passes before its route (headers, shutdown, the per-address block,
 * auth, limits, version, request shape, access), run by one onRequest hook in the
 * order the plugins add them. Seven hooks of their own cost Fastify a hook iteration and a
 * promise each on every request; a step that awaits nothing here returns nothing, and
 * only the steps that do await (a key look-up, the limit store) make a promise.
 * A step refuses by throwing (an ApiError the problem handler renders).
 */
export type GateStep = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The steps of the request gate, in order (src/http/gate.ts). */
    gateSteps: GateStep[];
  }
}

export function addGateStep(app: FastifyInstance, step: GateStep): void {
  app.gateSteps.push(step);
}

export const requestGate = fp(async (app: FastifyInstance) => {
  const steps: GateStep[] = [];
  app.decorate('gateSteps', steps);
  app.addHook('onRequest', async (request, reply) => {
    for (const step of steps) {
      const pending = step(request, reply);
      if (pending) await pending;
    }
  });
});
