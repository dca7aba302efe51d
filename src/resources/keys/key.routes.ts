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
        response: { 200: KeyObject, ...ErrorResponses },
      },
    },
    async (request) => toKeyObject(keyOf(request)),
  );
}
