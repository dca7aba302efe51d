import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerDocRoutes } from '../doc.routes.ts';
import { orders } from './order.collection.ts';
import { Order, OrderFilters } from './order.schema.ts';

export async function orderRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerDocRoutes(app, db, {
    path: '/orders',
    collection: 'orders',
    spec: orders,
    record: Order,
    filters: OrderFilters,
    tag: 'Orders',
    summary: { list: 'List orders', get: 'Retrieve an order' },
    about: "Orders at the workspace's venues. A test key sees only test orders, a live key only real ones.",
  });
}
