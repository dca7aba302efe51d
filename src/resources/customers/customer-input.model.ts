import type { CountryCode } from 'libphonenumber-js';
import type { CustomerTable } from '../../db/tables/customer.ts';
import { forbidden, invalid, type FieldError } from '../../errors.ts';
import { isCalendarDate } from '../../lib/time.ts';
import type { UpdateCustomerBody } from './customer-body.schema.ts';
import { toE164 } from './phone.model.ts';

/** The customer columns a write may set, named as the database names them. */
export const EDITABLE = [
  'first_name',
  'last_name',
  'nickname',
  'email',
  'phone',
  'date_of_birth',
  'company',
  'gender',
  'adult',
  'marketing_consent',
  'how_heard_about_us',
  'address_line1',
  'address_line2',
  'address_suburb',
  'address_state',
  'address_postcode',
  'address_country',
] as const;
export type EditableColumn = (typeof EDITABLE)[number];
export type CustomerPatch = Partial<Pick<CustomerTable, EditableColumn>>;

const ADDRESS = ['line1', 'line2', 'suburb', 'state', 'postcode', 'country'] as const;
const TEXT = ['last_name', 'nickname', 'company', 'how_heard_about_us'] as const;
/** What passes as an email address (DECISIONS "Customers"): the API and the import both check with it. */
export const EMAIL_ADDRESS = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/;
const EARLIEST_BIRTH = '1900-01-01';

/** Trimmed text; an empty or blank string means "none" (null). */
function text(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

export interface InputContext {
  /** Today as `yyyy-MM-dd` (UTC): a date of birth may not be after it. */
  today: string;
  defaultCountry: CountryCode | null;
}

/**
 * The body of a create or update as column values: trimmed, email lowercased, phone in
 * E.164, dates checked (SPEC "Customer body fields", DECISIONS "Customers"). Only the
 * fields sent appear in the answer. Every bad field is reported at once.
 */
export function toCustomerPatch(body: UpdateCustomerBody, ctx: InputContext): CustomerPatch {
  // SPEC "Authentication" 7: no key can give marketing consent.
  if (body.marketing_consent === true) throw forbidden('marketing_consent can only be set to false through this API.');
  const patch: CustomerPatch = {};
  const errors: FieldError[] = [];
  if (body.first_name !== undefined) {
    const name = text(body.first_name);
    if (name === null) errors.push({ field: 'first_name', message: 'cannot be empty' });
    else patch.first_name = name;
  }
  for (const field of TEXT) if (body[field] !== undefined) patch[field] = text(body[field]);
  if (body.email !== undefined) {
    const email = text(body.email)?.toLowerCase() ?? null;
    if (email !== null && !EMAIL_ADDRESS.test(email))
      errors.push({ field: 'email', message: 'is not an email address' });
    else patch.email = email;
  }
  if (body.phone !== undefined) {
    const raw = text(body.phone);
    const phone = raw === null ? null : toE164(raw, ctx.defaultCountry);
    if (raw !== null && phone === null) errors.push({ field: 'phone', message: 'is not a possible phone number' });
    else patch.phone = phone;
  }
  if (body.date_of_birth !== undefined) {
    const date = body.date_of_birth;
    if (date !== null && !isCalendarDate(date))
      errors.push({ field: 'date_of_birth', message: 'is not a calendar date' });
    else if (date !== null && (date > ctx.today || date < EARLIEST_BIRTH)) {
      errors.push({ field: 'date_of_birth', message: `must be from ${EARLIEST_BIRTH} to today` });
    } else patch.date_of_birth = date;
  }
  if (body.gender !== undefined) patch.gender = body.gender;
  if (body.adult !== undefined) patch.adult = body.adult ? 1 : 0;
  if (body.marketing_consent !== undefined) patch.marketing_consent = 0;
  if (body.address !== undefined) {
    for (const part of ADDRESS) {
      if (body.address[part] !== undefined) patch[`address_${part}`] = text(body.address[part]);
    }
  }
  if (errors.length > 0) throw invalid(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  return patch;
}

/** The columns of `patch` whose value differs from `row`'s. */
export function changedColumns(row: Pick<CustomerTable, EditableColumn>, patch: CustomerPatch): EditableColumn[] {
  return (Object.keys(patch) as EditableColumn[]).filter((c) => patch[c] !== row[c]);
}

export function todayUtc(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}
