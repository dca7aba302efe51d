import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/schema.ts';
import { activityRoutes } from './activities/activity.routes.ts';
import { bookingRoutes } from './bookings/booking.routes.ts';
import { customerReadRoutes } from './customers/customer.routes.ts';
import { customerWriteRoutes } from './customers/customer-write.routes.ts';
import { eventRoutes } from './events/event.routes.ts';
import { giftCardRoutes } from './gift-cards/gift-card.routes.ts';
import { keyRoutes } from './keys/key.routes.ts';
import { listRoutes } from './lists/list.routes.ts';
import { orderRoutes } from './orders/order.routes.ts';
import { packageRoutes } from './packages/package.routes.ts';
import { tagRoutes } from './tags/tag.routes.ts';
import { ticketRoutes } from './tickets/ticket.routes.ts';
import { venueRoutes } from './venues/venue.routes.ts';
import { webhookEventRoutes } from './webhook-events/event-feed.routes.ts';

/** Every resource's routes, registered under the API root. */
export async function resourceRoutes(app: FastifyInstance, options: { db: Db }) {
  await app.register(keyRoutes);
  await app.register(venueRoutes, options);
  await app.register(customerReadRoutes, options);
  await app.register(customerWriteRoutes, options);
  await app.register(tagRoutes, options);
  await app.register(listRoutes, options);
  await app.register(bookingRoutes, options);
  await app.register(orderRoutes, options);
  await app.register(activityRoutes, options);
  await app.register(packageRoutes, options);
  await app.register(eventRoutes, options);
  await app.register(ticketRoutes, options);
  await app.register(giftCardRoutes, options);
  await app.register(webhookEventRoutes, options);
}
