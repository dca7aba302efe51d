import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerDocRoutes } from '../doc.routes.ts';
import { bookings } from './booking.collection.ts';
import { Booking, BookingFilters } from './booking.schema.ts';

export async function bookingRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerDocRoutes(app, db, {
    path: '/bookings',
    collection: 'bookings',
    spec: bookings,
    record: Booking,
    filters: BookingFilters,
    tag: 'Bookings',
    summary: { list: 'List bookings', get: 'Retrieve a booking' },
    about: "Bookings at the workspace's venues. A test key sees only test bookings, a live key only real ones.",
  });
}
