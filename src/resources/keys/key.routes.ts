import type { FastifyInstance } from 'fastify';
import { keyOf } from '../../http/caller.ts';
import { ErrorResponses } from '../../http/schemas.ts';
import { KeyObject, toKeyObject } from './key.schema.ts';

export async function keyRoutes(app: FastifyInstance) {
  app.get(
    '/key',
    {
      config: { access: { kind: 'any-key' } },
      schema: {
        tags: ['Key'],
        summary: 'What the calling key may do',
        description:
          "The calling key: its mode and access, what it may read and write, whether it sees contacts masked, when it expires, and the limits in force for it. Any valid key may call it, so a program can check what it holds before it starts; it counts against the key's limits like any request.",
        response: { 200: KeyObject, ...ErrorResponses },
      },
    },
    async (request) => toKeyObject(keyOf(request)),
  );
}
