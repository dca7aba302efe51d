import { newId } from '../../src/lib/ids.ts';

/** Records in the API's own shapes (SPEC "Resources and their fields"), for import files. */
const AT = '2025-03-01T10:00:00.000Z';
const stamps = { created_at: AT, updated_at: AT };
type Rec = Record<string, unknown>;

export const venue = (patch: Rec = {}): Rec => ({
  id: newId('venue'),
  object: 'venue',
  name: 'Harbour Lanes',
  slug: 'harbour-lanes',
  booking_code: 'HBR',
  timezone: 'Australia/Sydney',
  currency: 'aud',
  address: { line1: '1 Quay St', city: 'Sydney', state: 'NSW', postal_code: '2000', country: 'AU' },
  phone: '+61291234567',
  email: 'hello@example.com',
  active: true,
  ...stamps,
  ...patch,
});

export const tag = (patch: Rec = {}): Rec => ({ id: newId('tag'), object: 'tag', name: 'VIP', ...stamps, ...patch });

export const list = (patch: Rec = {}): Rec => ({
  id: newId('list'),
  object: 'list',
  name: 'Newsletter',
  slug: 'newsletter',
  description: null,
  kind: 'manual',
  ...stamps,
  ...patch,
});

export const activity = (venueId: string, patch: Rec = {}): Rec => ({
  id: newId('activity'),
  object: 'activity',
  name: 'Bowling',
  slug: 'bowling',
  description: null,
  status: 'active',
  pricing_model: 'per_head',
  prices: { adult: 2500, junior: 1800, flat_rate: null },
  peak_prices: null,
  guests: { min_adults: 1, max_adults: 8, min_juniors: 0, max_juniors: 8, max_guests: 8 },
  staff_only: false,
  venues: [venueId],
  ...stamps,
  ...patch,
});

export const event = (venueId: string, dateId: string, patch: Rec = {}): Rec => ({
  id: newId('event'),
  object: 'event',
  name: 'Trivia Night',
  slug: 'trivia-night',
  description: null,
  status: 'published',
  venue: venueId,
  price_per_ticket: 1500,
  max_tickets: 100,
  min_tickets: 1,
  min_age: null,
  duration_minutes: 120,
  date_mode: 'single',
  timezone: 'Australia/Sydney',
  staff_only: false,
  dates: [
    {
      id: dateId,
      label: null,
      scheduled_at: '2025-04-01T08:00:00.000Z',
      local_date: '2025-04-01',
      local_time: '19:00',
      duration_minutes: null,
      max_tickets: null,
      price_per_ticket: null,
      status: 'on_sale',
    },
  ],
  ...stamps,
  ...patch,
});

export const customer = (patch: Rec = {}): Rec => ({
  id: newId('customer'),
  object: 'customer',
  first_name: 'Ada',
  last_name: 'Lovelace',
  nickname: null,
  email: null,
  phone: null,
  date_of_birth: null,
  company: null,
  address: { line1: null, line2: null, suburb: null, state: null, postcode: null, country: null },
  adult: true,
  marketing_consent: false,
  membership: { member: false, tier: null },
  tags: [],
  lists: [],
  livemode: true,
  ...stamps,
  version: '1',
  ...patch,
});

export const booking = (venueId: string, customerId: string, productId: string, patch: Rec = {}): Rec => ({
  id: newId('booking'),
  object: 'booking',
  number: 'HBR-1001',
  venue: venueId,
  status: { name: 'Confirmed', type: 'active' },
  scheduled_at: '2025-04-02T08:00:00.000Z',
  local_date: '2025-04-02',
  local_time: '19:00',
  timezone: 'Australia/Sydney',
  duration_minutes: 60,
  guests: { adults: 2, juniors: 0, additional: 0 },
  people: [{ customer: customerId, primary: true, adult: true, role: 'organiser', checked_in_at: null }],
  lines: [{ product: { object: 'activity', id: productId, name: 'Bowling' }, quantity: 2 }],
  source: 'online',
  blocked: false,
  checked_in_at: null,
  hold_expires_at: null,
  livemode: true,
  ...stamps,
  ...patch,
});

export const order = (patch: Rec = {}): Rec => ({
  id: newId('order'),
  object: 'order',
  number: '5001',
  reference: null,
  type: 'booking',
  status: 'paid',
  venue: null,
  customer: null,
  booking: null,
  event: null,
  billing_details: { name: 'Ada Lovelace', email: null, phone: null },
  currency: 'aud',
  subtotal: 5000,
  discount: 0,
  gift_card: 0,
  store_credit: 0,
  total: 5000,
  amount_refunded: 0,
  amount_due: 0,
  amount_paid: 5000,
  discount_code: null,
  due_date: null,
  lines: [
    {
      id: 'oli_1',
      name: 'Bowling: adult',
      type: 'activity',
      category: 'activities',
      quantity: 2,
      unit_price: 2500,
      total: 5000,
      discount: 0,
      tax: 455,
      tax_rate: '0.10',
      adjusts: null,
    },
  ],
  payments: [
    { amount: 5000, method: 'card', status: 'succeeded', card: { brand: 'visa', last4: '4242' }, processed_at: AT },
  ],
  refunds: [],
  livemode: true,
  ...stamps,
  ...patch,
});

export const ticket = (patch: Rec = {}): Rec => ({
  id: newId('ticket'),
  object: 'ticket',
  event: null,
  event_date: null,
  order: null,
  customer: null,
  attendee_name: 'Ada Lovelace',
  status: 'valid',
  checked_in_at: null,
  ...stamps,
  ...patch,
});

export const giftCard = (patch: Rec = {}): Rec => ({
  id: newId('gift_card'),
  object: 'gift_card',
  code_last4: 'AB12',
  balance: 5000,
  expires_at: null,
  active: true,
  holder: null,
  buyer: null,
  recipient_name: null,
  delivered_at: null,
  movements: [],
  ...stamps,
  ...patch,
});

export const ndjson = (lines: Array<Rec | string>) =>
  lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');
