import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerDocRoutes } from '../doc.routes.ts';
import { giftCards } from './gift-card.collection.ts';
import { GiftCard, GiftCardFilters } from './gift-card.schema.ts';

export async function giftCardRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerDocRoutes(app, db, {
    path: '/gift-cards',
    collection: 'gift-cards',
    spec: giftCards,
    record: GiftCard,
    filters: GiftCardFilters,
    tag: 'Gift cards',
    summary: { list: 'List gift cards', get: 'Retrieve a gift card' },
    about:
      "The workspace's gift cards; the whole code is never sent. Gift cards are real records only, so a test key sees none.",
  });
}
