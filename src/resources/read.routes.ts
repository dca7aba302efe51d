import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { etagOf, notModified } from '../http/etag.ts';
import { ErrorResponses, IdParams } from '../http/schemas.ts';
import { actorOf } from '../http/caller.ts';
import { sendJsonText } from '../http/json-text.ts';
import { JsonText } from './json-text.model.ts';
import type { Actor } from './actor.model.ts';
import type { Collection } from './keys/key.model.ts';
import type { Page } from './paging.model.ts';
import { ListEnvelope, PageQuery } from './wire.schema.ts';

/**
 * The query of a list, the common three (SPEC "Rules common to all endpoints" 2) and its
 * own filters, as the TypeBox type provider hands it to the handler (`[T] extends [undefined]`
 * is how Fastify resolves a part no schema declares; here one always does).
 */
export type ListQuery<F extends TProperties> = Provided<Static<TObject<typeof PageQuery & F>>>;
type Provided<T> = [T] extends [undefined] ? unknown : T;

export interface ReadRoutesOptions<F extends TProperties> {
  path: string;
  collection: Collection;
  /** The record's schema: what a retrieve answers and a list's `data` holds. */
  record: TObject;
  /** What a list's `data` holds when it is more than the record (customers with their deletions). */
  listItem?: TSchema;
  /** Filters beyond the common three, as TypeBox properties (all optional). */
  filters: F;
  tag: string;
  summary: { list: string; get: string };
  /** What the record is and which keys see which: the start of both operations' descriptions. */
  about: string;
  /** What only the list adds to `about` (its own filters' rules). */
  listAbout?: string;
  /** A page to serialise, or JSON text the database already wrote (sent as it is). */
  list: (actor: Actor, query: ListQuery<F>) => Promise<Page<Record<string, unknown>> | JsonText>;
  get: (actor: Actor, id: string) => Promise<{ record: Record<string, unknown> | JsonText; version: string }>;
}

/** SPEC "Rules common to all endpoints" 2 and 3, as each list and retrieve tells it. */
const LIST_RULES =
  "Newest first, `limit` a page (1 to 100, default 25). Pass the answer's `next_cursor` as `starting_after` for the next page, until `has_more` is false; `updated_since` keeps only the rows changed at or after that instant (see Pagination).";
const GET_RULES =
  "The answer's `ETag` is the record's version: send it as `If-None-Match` to get a 304 while your copy is current. An id of another type, or of a record this key cannot see, is 404.";

/** GET /<collection> and GET /<collection>/{id} over any list and get functions. */
export function registerReadRoutes<F extends TProperties>(
  instance: FastifyInstance,
  options: ReadRoutesOptions<F>,
): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { path, collection, record, filters, tag, summary, about } = options;
  const access = { kind: 'read' as const, collection };
  const query = Type.Object({ ...PageQuery, ...filters }, { additionalProperties: false }) as TObject<
    typeof PageQuery & F
  >;
  app.get(
    path,
    {
      config: { access },
      schema: {
        tags: [tag],
        summary: summary.list,
        description: `${about}${options.listAbout ? ` ${options.listAbout}` : ''}\n\n${LIST_RULES}`,
        querystring: query,
        response: { 200: ListEnvelope(options.listItem ?? record), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const page = await options.list(actorOf(request), request.query);
      return page instanceof JsonText ? sendJsonText(request, reply, page) : page;
    },
  );
  app.get(
    `${path}/:id`,
    {
      config: { access },
      schema: {
        tags: [tag],
        summary: summary.get,
        description: `${about}\n\n${GET_RULES}`,
        params: IdParams,
        response: { 200: record, 304: Type.Null({ description: 'Not modified' }), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { record: found, version } = await options.get(actorOf(request), request.params.id);
      reply.header('ETag', etagOf(version));
      // 304 has no body (RFC 9110); the schema's null is what the document shows for it.
      if (notModified(request.headers['if-none-match'], version)) return reply.code(304).send(null);
      return found instanceof JsonText ? sendJsonText(request, reply, found) : found;
    },
  );
}
