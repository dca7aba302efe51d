import type { TProperties } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/schema.ts';
import { getDoc, listDocs, type DocCollection } from './doc.service.ts';
import { registerReadRoutes, type ReadRoutesOptions } from './read.routes.ts';

export type DocRoutesOptions<F extends TProperties> = Omit<ReadRoutesOptions<F>, 'list' | 'get' | 'filters'> & {
  // biome-ignore lint/suspicious/noExplicitAny: each collection declares its own filter types
  spec: DocCollection<any>;
  filters?: F;
};

/** GET /<collection> and GET /<collection>/{id} over the doc service. */
export function registerDocRoutes<F extends TProperties>(
  app: FastifyInstance,
  db: Db,
  options: DocRoutesOptions<F>,
): void {
  const { spec, filters, ...routes } = options;
  registerReadRoutes(app, {
    ...routes,
    filters: (filters ?? {}) as F,
    list: (actor, query) => listDocs(db, spec, actor, query),
    get: (actor, id) => getDoc(db, spec, actor, id),
  });
}
