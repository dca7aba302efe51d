import { describe, expect, it } from 'vitest';
import { recordProblems } from '../../src/import/references.ts';
import { EMAIL_ADDRESS, toCustomerPatch } from '../../src/resources/customers/customer-input.model.ts';
import * as r from './records.ts';

/** One rule for what an email address is (DECISIONS "Customers"), for the API and the import alike. */
const ADDRESSES = [
  'ada@example.com',
  'a.b+c@mail.example.co.uk',
  'ada@example',
  'ada example@x.com',
  '@example.com',
  'ada@@example.com',
  'ada@.com',
  `${'a'.repeat(65)}@example.com`,
];

describe('the email rule', () => {
  it.each(ADDRESSES)('the API and the import agree on %s', (address) => {
    const valid = EMAIL_ADDRESS.test(address);
    const api = (() => {
      try {
        toCustomerPatch({ email: address }, { today: '2026-01-01', defaultCountry: null });
        return true;
      } catch {
        return false;
      }
    })();
    const importer = !recordProblems('customer', r.customer({ email: address })).includes(
      'email is not an email address',
    );
    expect([api, importer]).toEqual([valid, valid]);
  });
});
