import { describe, expect, it } from 'vitest';
import { maskEvent, maskRecord, maskRecordJson } from '../../src/lib/mask.ts';

/**
 * lib/mask.ts, the API's one masking (DECISIONS "Keys"): the rule, whatever the stored text
 * (the import and older rows may hold what the API would refuse), and where each record
 * type keeps its contacts, in records, parts of records and events.
 */
/** Stored text and what a contacts-masked reader sees of it, for each kind of contact. */
const RULE = {
  // The first character and the part after the last @, else ***.
  email: [
    ['jane@example.com', 'j***@example.com'],
    ['a@b@c.org', 'a***@c.org'],
    ['🎉x@party.com', '🎉***@party.com'],
    ['é@x.fr', 'é***@x.fr'],
    ['x@', 'x***@'],
    ['plain', '***'],
    ['@start.com', '***'],
  ],
  // A star for each digit but the last two.
  phone: [
    ['+61 412 345 678', '+*********78'],
    ['(02) 9876-5432', '+********32'],
    ['+٣٤٥123', '+*23'],
    ['12', '+**'],
    ['+1', '+*'],
    ['call me', '+'],
    ['', '+'],
  ],
} as const;

describe('the masking rule', () => {
  it.each(Object.entries(RULE))("a customer's %s, whatever the stored text", (kind, cases) => {
    for (const [stored, masked] of cases)
      expect(maskRecord('customer', { [kind]: stored }), stored).toEqual({ [kind]: masked });
  });

  it('null stays null', () => {
    expect(maskRecord('customer', { email: null, phone: null })).toEqual({ email: null, phone: null });
  });
});

describe('where each record type keeps contacts', () => {
  const order = {
    id: 'ord_1',
    object: 'order',
    billing_details: { name: 'Ada', email: 'ada@example.com', phone: '+61412345678' },
    total: 5000,
  };

  it("an order's billing email and phone, the rest as it was, the record itself untouched", () => {
    const masked = maskRecord('order', order);
    expect(masked).toEqual({
      ...order,
      billing_details: { name: 'Ada', email: 'a***@example.com', phone: '+*********78' },
    });
    expect(Object.keys(masked.billing_details)).toEqual(['name', 'email', 'phone']);
    expect(order.billing_details.email).toBe('ada@example.com');
  });

  it('a type with no contacts in the table is sent as it is (a venue keeps its public email)', () => {
    const venue = { id: 'ven_1', object: 'venue', email: 'hello@venue.example', phone: '+61299999999' };
    expect(maskRecord('venue', venue)).toBe(venue);
  });

  it('a part of a record is masked where it holds contacts, and nothing is added', () => {
    expect(maskRecord('order', { total: 4000 })).toEqual({ total: 4000 });
    expect(maskRecord('order', { billing_details: { email: 'bo@example.com' } })).toEqual({
      billing_details: { email: 'b***@example.com' },
    });
  });

  it('JSON text keeps its bytes but for the contacts', () => {
    const text = JSON.stringify({ id: 'cus_1', object: 'customer', email: 'jo@example.com', phone: null, tags: [] });
    expect(maskRecordJson('customer', text)).toBe(text.replace('jo@example.com', 'j***@example.com'));
  });
});

describe('an event', () => {
  it("masks data.object and previous_attributes by the type its own type names (order.updated: an order's)", () => {
    const billing = { name: 'Ada', email: 'ada@example.com', phone: '+61412345678' };
    const event = {
      id: 'whe_1',
      type: 'order.updated',
      data: { object: { id: 'ord_1', billing_details: billing }, previous_attributes: { billing_details: billing } },
    };
    const masked = { name: 'Ada', email: 'a***@example.com', phone: '+*********78' };
    expect(maskEvent(event)).toEqual({
      id: 'whe_1',
      type: 'order.updated',
      data: { object: { id: 'ord_1', billing_details: masked }, previous_attributes: { billing_details: masked } },
    });
  });

  it("a customer's earlier email, the deleted shape, and a test event", () => {
    const updated = {
      type: 'customer.updated',
      data: { object: { email: 'new@example.com' }, previous_attributes: { email: 'old@example.com' } },
    };
    expect(maskEvent(updated).data).toEqual({
      object: { email: 'n***@example.com' },
      previous_attributes: { email: 'o***@example.com' },
    });
    const deleted = { type: 'customer.deleted', data: { object: { id: 'cus_1', object: 'customer', deleted: true } } };
    expect(maskEvent(deleted)).toEqual(deleted);
    const test = { type: 'webhook.test', data: { object: { id: 'wh_1', url: 'https://x.example' } } };
    expect(maskEvent(test)).toEqual(test);
  });
});
