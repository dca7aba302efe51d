import { COLLECTIONS, DEFAULT_KEY_LIMITS, WRITES } from '../resources/keys/key.model.ts';

/**
 * The example records of the OpenAPI document (openapi-examples.ts puts them in each
 * operation's answer): one of each resource, with ids of the right shape and the dates
 * they would have.
 */
const id = (prefix: string, body: string) => `${prefix}_${body.padEnd(22, '0').slice(0, 22)}`;

const CREATED = '2026-09-14T02:11:09.412Z';
const UPDATED = '2026-10-02T23:45:01.007Z';
const VENUE = id('ven', '3kXq9TzL1mWb7RcY');
export const CUSTOMER = id('cus', '7nH2pQ4sVw9xKb1Lm3Z');
export const TAG = id('tag', '5fGt8RkP2qWz');
export const LIST = id('lst', '9dLm3XvB6nQp');
const BOOKING = id('bkg', '2wQe7RtY5uIo9PaS');
const ORDER = id('ord', '8kJh4GfD1sAz6XcV');
const ACTIVITY = id('act', '4bNm1QwE8rTy');
const PACKAGE = id('pkg', '6vCx2ZaS9dFg');
const EVENT = id('evt', '1hJk7LpO3iUy');
const EVENT_DATE = id('evd', '3tRe6WqA9sDf');
const TICKET = id('tkt', '5gHj2KlZ8xCv');
const GIFT_CARD = id('gft', '7bNm4QwE1rTy');

export const list = (record: object) => ({
  object: 'list',
  data: [record],
  has_more: true,
  next_cursor: 'eyJjIjoiMjAyNi0wOS0xNFQwMjoxMTowOS40MTJaIiwiaSI6ImN1c183bkgycFE0In0',
});

export const venue = {
  id: VENUE,
  object: 'venue',
  name: 'Harbourside Lanes',
  slug: 'harbourside-lanes',
  booking_code: 'HBL',
  timezone: 'Australia/Sydney',
  currency: 'aud',
  address: { line1: '12 Wharf Road', city: 'Sydney', state: 'NSW', postal_code: '2000', country: 'AU' },
  phone: '+61292001234',
  email: 'hello@harbourside.example',
  active: true,
  created_at: CREATED,
  updated_at: UPDATED,
};

export const customer = {
  id: CUSTOMER,
  object: 'customer',
  first_name: 'Ada',
  last_name: 'Lovelace',
  nickname: null,
  email: 'ada@example.com',
  phone: '+61412345678',
  date_of_birth: '1990-12-10',
  company: null,
  address: { line1: '3 Ocean Street', line2: null, suburb: 'Bondi', state: 'NSW', postcode: '2026', country: 'AU' },
  adult: true,
  marketing_consent: false,
  membership: { member: true, tier: 'Gold' },
  tags: [{ id: TAG, name: 'VIP', added_at: UPDATED }],
  lists: [{ id: LIST, name: 'Newsletter', status: 'active', added_at: CREATED, unsubscribed_at: null }],
  livemode: false,
  created_at: CREATED,
  updated_at: UPDATED,
  version: '4',
};

export const tag = { id: TAG, object: 'tag', name: 'VIP', created_at: CREATED, updated_at: UPDATED };

export const listRecord = {
  id: LIST,
  object: 'list',
  name: 'Newsletter',
  slug: 'newsletter',
  description: 'Monthly news and offers.',
  kind: 'manual',
  created_at: CREATED,
  updated_at: UPDATED,
};

export const booking = {
  id: BOOKING,
  object: 'booking',
  number: 'HBL-10422',
  venue: VENUE,
  status: { name: 'Confirmed', type: 'active' },
  scheduled_at: '2026-10-17T08:30:00.000Z',
  local_date: '2026-10-17',
  local_time: '19:30',
  timezone: 'Australia/Sydney',
  duration_minutes: 90,
  guests: { adults: 4, juniors: 2, additional: 0 },
  people: [{ customer: CUSTOMER, primary: true, adult: true, role: 'organiser', checked_in_at: null }],
  lines: [{ product: { object: 'activity', id: ACTIVITY, name: 'Ten-pin bowling' }, quantity: 6 }],
  source: 'online',
  blocked: false,
  checked_in_at: null,
  hold_expires_at: null,
  livemode: false,
  created_at: CREATED,
  updated_at: UPDATED,
};

export const order = {
  id: ORDER,
  object: 'order',
  number: '20931',
  reference: null,
  type: 'booking',
  status: 'paid',
  venue: VENUE,
  customer: CUSTOMER,
  booking: BOOKING,
  event: null,
  billing_details: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+61412345678' },
  currency: 'aud',
  subtotal: 16800,
  discount: 1000,
  gift_card: 0,
  store_credit: 0,
  total: 15800,
  amount_refunded: 0,
  amount_due: 0,
  amount_paid: 15800,
  discount_code: 'SPRING10',
  due_date: null,
  lines: [
    {
      id: 'line_1',
      name: 'Ten-pin bowling',
      type: 'product',
      category: 'bowling',
      quantity: 6,
      unit_price: 2800,
      total: 15800,
      discount: 1000,
      tax: 1436,
      tax_rate: '0.10',
      adjusts: null,
    },
  ],
  payments: [
    {
      amount: 15800,
      method: 'card',
      status: 'succeeded',
      card: { brand: 'visa', last4: '4242' },
      processed_at: UPDATED,
    },
  ],
  refunds: [],
  livemode: false,
  created_at: CREATED,
  updated_at: UPDATED,
};

const bookable = {
  description: 'Twelve lanes, shoes included.',
  status: 'active',
  pricing_model: 'per_head',
  guests: { min_adults: 1, max_adults: 12, min_juniors: 0, max_juniors: 12, max_guests: 24 },
  staff_only: false,
  venues: [VENUE],
  created_at: CREATED,
  updated_at: UPDATED,
};

export const activity = {
  id: ACTIVITY,
  object: 'activity',
  name: 'Ten-pin bowling',
  slug: 'ten-pin-bowling',
  ...bookable,
  prices: { adult: 2800, junior: 2200, flat_rate: null },
  peak_prices: { adult: 3200, junior: 2500, flat_rate: null },
};

export const packageRecord = {
  id: PACKAGE,
  object: 'package',
  name: 'Birthday party',
  slug: 'birthday-party',
  ...bookable,
  prices: { adult: null, junior: 3500, flat_rate: null, base: 15000 },
  peak_prices: null,
  duration_minutes: 120,
  deposit: { type: 'fixed', value: 5000 },
  available_from: '2026-01-01',
  available_until: null,
};

export const event = {
  id: EVENT,
  object: 'event',
  name: 'Halloween cosmic bowling',
  slug: 'halloween-cosmic-bowling',
  description: 'Glow lanes, costumes and a DJ.',
  status: 'on_sale',
  venue: VENUE,
  price_per_ticket: 3500,
  max_tickets: 10,
  min_tickets: 1,
  min_age: 12,
  duration_minutes: 180,
  date_mode: 'single',
  timezone: 'Australia/Sydney',
  staff_only: false,
  dates: [
    {
      id: EVENT_DATE,
      label: null,
      scheduled_at: '2026-10-31T08:00:00.000Z',
      local_date: '2026-10-31',
      local_time: '19:00',
      duration_minutes: 180,
      max_tickets: 120,
      price_per_ticket: 3500,
      status: 'on_sale',
    },
  ],
  created_at: CREATED,
  updated_at: UPDATED,
};

export const ticket = {
  id: TICKET,
  object: 'ticket',
  event: EVENT,
  event_date: EVENT_DATE,
  order: ORDER,
  customer: CUSTOMER,
  attendee_name: 'Ada Lovelace',
  status: 'valid',
  checked_in_at: null,
  created_at: CREATED,
  updated_at: UPDATED,
};

export const giftCard = {
  id: GIFT_CARD,
  object: 'gift_card',
  code_last4: 'Q7XZ',
  balance: 7500,
  expires_at: '2029-09-14T02:11:09.412Z',
  active: true,
  holder: CUSTOMER,
  buyer: CUSTOMER,
  recipient_name: 'Grace Hopper',
  delivered_at: CREATED,
  movements: [
    { type: 'issue', amount: 10000, balance_after: 10000, order: ORDER, booking: null, created_at: CREATED },
    { type: 'redeem', amount: -2500, balance_after: 7500, order: null, booking: BOOKING, created_at: UPDATED },
  ],
  created_at: CREATED,
  updated_at: UPDATED,
};

export const key = {
  id: id('key', '2mNb5VcX8zLk'),
  object: 'api_key',
  kind: 'standard',
  access: 'read_write',
  mode: 'test',
  expires_at: null,
  contacts_masked: false,
  // A new key's limits: the defaults SPEC "Limits" gives.
  limits: { ...DEFAULT_KEY_LIMITS },
  // A read-write key that may read and write everything: the lists the key model holds.
  can_read: [...COLLECTIONS],
  can_write: [...WRITES],
  allowed_ips: [],
};

/** A customer.updated event as the feed serves it (and a delivery carries it). */
export const webhookEvent = {
  id: id('whe', '2kXq9TzL1mWb7RcYp4Hs'),
  object: 'webhook_event',
  type: 'customer.updated',
  created_at: UPDATED,
  livemode: false,
  data: { object: { ...customer, nickname: 'Countess', version: '5' }, previous_attributes: { nickname: null } },
};
