import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sendVersioned } from '../http/etag.ts';
import { ErrorResponses, IdParams, ListEnvelope, PageQuery } from '../http/schemas.ts';
import type { RequestScope } from '../http/types.ts';
import type { Collection } from './keys/key.model.ts';
import type { Page } from './paging.ts';

export interface ReadRoutesOptions<R> {
  path: string;
  collection: Collection;
  record: TObject;
  /** Filters beyond the common three, as TypeBox properties (all optional). */
  filters?: TProperties;
  tag: string;
  summary: { list: string; get: string };
  list: (scope: RequestScope, query: Record<string, unknown>) => Promise<Page<R>>;
  get: (scope: RequestScope, id: string) => Promise<{ record: R; version: string }>;
}

/** GET /<collection> and GET /<collection>/{id} over any list and get functions. */
export function registerReadRoutes<R>(app: FastifyInstance, options: ReadRoutesOptions<R>): void {
  const { path, collection, record, filters = {}, tag, summary } = options;
  const access = { kind: 'read' as const, collection };
  app.get(
    path,
    {
      config: { access },
      schema: {
        tags: [tag],
        summary: summary.list,
        querystring: Type.Object({ ...PageQuery, ...filters }, { additionalProperties: false }),
        response: { 200: ListEnvelope(record), ...ErrorResponses },
      },
    },
    async (request) => options.list(request.scope!, request.query as Record<string, unknown>),
  );
  app.get(
    `${path}/:id`,
    {
      config: { access },
      schema: {
        tags: [tag],
        summary: summary.get,
        params: IdParams,
        response: { 200: record, 304: Type.Null({ description: 'Not modified' }), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { record: found, version } = await options.get(request.scope!, (request.params as { id: string }).id);
      return sendVersioned(request, reply, found, version);
    },
  );
}
