import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/schema.ts';
import { sendVersioned } from '../http/etag.ts';
import { ErrorResponses, IdParams, ListEnvelope, PageQuery } from '../http/schemas.ts';
import type { Collection } from './keys/key.model.ts';
import { getDoc, listDocs, type DocCollection } from './doc-collection.ts';

export interface DocRoutesOptions {
  path: string;
  collection: Collection;
  spec: DocCollection<any, any>;
  record: TObject;
  /** Filters beyond the common three, as TypeBox properties (all optional). */
  filters?: TProperties;
  tag: string;
  summary: { list: string; get: string };
}

/** GET /<collection> and GET /<collection>/{id}: thin routes over the doc repository. */
export function registerDocRoutes(app: FastifyInstance, db: Db, options: DocRoutesOptions): void {
  const { path, collection, spec, record, filters = {}, tag, summary } = options;
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
    async (request) => listDocs(db, spec, request.scope!, request.query as Record<string, unknown>),
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
      const { id } = request.params as { id: string };
      const { record: found, version } = await getDoc(db, spec, request.scope!, id);
      return sendVersioned(request, reply, found, version);
    },
  );
}
