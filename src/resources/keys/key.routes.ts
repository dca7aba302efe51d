import type { FastifyInstance } from 'fastify';
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
    async (request) => toKeyObject(request.scope!.key),
  );
}
