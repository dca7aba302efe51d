import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerDocRoutes } from '../doc.routes.ts';
import { tickets } from './ticket.collection.ts';
import { Ticket, TicketFilters } from './ticket.schema.ts';

export async function ticketRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerDocRoutes(app, db, {
    path: '/tickets',
    collection: 'tickets',
    spec: tickets,
    record: Ticket,
    filters: TicketFilters,
    tag: 'Tickets',
    summary: { list: 'List tickets', get: 'Retrieve a ticket' },
    about: 'Places at an event date, each sold on an order. Tickets are real records only, so a test key sees none.',
  });
}
