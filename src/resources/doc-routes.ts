import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/schema.ts';
import { getDoc, listDocs, type DocCollection } from './doc-collection.ts';
import { registerReadRoutes, type ReadRoutesOptions } from './read-routes.ts';

export type DocRoutesOptions = Omit<ReadRoutesOptions<unknown>, 'list' | 'get'> & { spec: DocCollection<any, any> };

/** GET /<collection> and GET /<collection>/{id} over the doc repository. */
export function registerDocRoutes(app: FastifyInstance, db: Db, options: DocRoutesOptions): void {
  const { spec, ...routes } = options;
  registerReadRoutes(app, {
    ...routes,
    list: (scope, query) => listDocs(db, spec, scope, query),
    get: (scope, id) => getDoc(db, spec, scope, id),
  });
}
