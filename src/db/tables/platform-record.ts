/**
 * Read-only collections the platform owns (venues, bookings, orders, …): each keeps its record
 * in `data` (JSON text) beside the columns its filters and order need, so one row fetch serves
 * a record, no joins.
 */

/** A record kept whole as JSON, with the columns its list needs. */
export interface DocColumns {
  id: string;
  workspace_id: string;
  created_at: number;
  updated_at: number;
  data: string;
}

export interface BookingTable extends DocColumns {
  livemode: number;
  venue_id: string | null;
  number: string;
  scheduled_at: number | null;
}

export interface OrderTable extends DocColumns {
  livemode: number;
  customer_id: string | null;
  booking_id: string | null;
  venue_id: string | null;
  number: string;
}

export interface TicketTable extends DocColumns {
  event_id: string | null;
  customer_id: string | null;
  order_id: string | null;
}

export interface GiftCardTable extends DocColumns {
  holder_id: string | null;
  buyer_id: string | null;
}
