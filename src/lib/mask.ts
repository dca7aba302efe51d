/**
 * DECISIONS "Keys": a contacts-masked key, and a `contacts_masked` webhook endpoint, never see
 * an email or phone in full: `j***@example.com`, `+*********12`. The one masking of the API:
 * the rule, and where each type of record keeps its contacts; every read and payload masks here.
 */
function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  // The first character whole: half of a surrogate pair would be no character at all.
  return `${String.fromCodePoint(email.codePointAt(0)!)}***@${email.slice(at + 1)}`;
}

function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length <= 2) return `+${'*'.repeat(digits.length)}`;
  return `+${'*'.repeat(digits.length - 2)}${digits.slice(-2)}`;
}

const MASKS = { email: maskEmail, phone: maskPhone };

/**
 * Where each record type (its `object`) keeps contacts, a path from its top level each; a
 * type not named here has none to mask (a venue's public email and phone, say).
 */
const CONTACTS: Readonly<Record<string, Readonly<Record<string, keyof typeof MASKS>>>> = {
  customer: { email: 'email', phone: 'phone' },
  order: { 'billing_details.email': 'email', 'billing_details.phone': 'phone' },
};

const PATHS = new Map(
  Object.entries(CONTACTS).map(([type, contacts]) => [
    type,
    Object.entries(contacts).map(([path, kind]) => ({ path: path.split('.'), mask: MASKS[kind] })),
  ]),
);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A record of `type` as a contacts-masked reader sees it: a copy with each of its contacts
 * masked (null stays null), the record itself when it has none. A part of a record (an event's
 * `previous_attributes`: some of its top-level fields) is masked where it holds them.
 */
export function maskRecord<T>(type: string, record: T): T {
  const contacts = PATHS.get(type);
  if (!contacts || !isObject(record)) return record;
  let out: Json = record;
  for (const { path, mask } of contacts) out = maskAt(out, path, mask);
  return out as T;
}

function maskAt(record: Json, [name, ...rest]: readonly string[], mask: (value: string) => string): Json {
  if (name === undefined || !Object.hasOwn(record, name)) return record;
  const value = record[name];
  let masked = value;
  if (rest.length === 0) masked = typeof value === 'string' ? mask(value) : value;
  else if (isObject(value)) masked = maskAt(value, rest, mask);
  return masked === value ? record : { ...record, [name]: masked };
}

/** The same of a record held as JSON text (a customer as the database writes it). */
export function maskRecordJson(type: string, json: string): string {
  return JSON.stringify(maskRecord(type, JSON.parse(json) as unknown));
}

export interface EventShape {
  type: string;
  data: { object?: unknown; previous_attributes?: unknown };
}

/**
 * An event (DECISIONS "Webhooks"), its record's type the first part of its own
 * (`order.updated`: an order): `data.object` and `previous_attributes` masked alike.
 */
export function maskEvent<E extends EventShape>(event: E): E {
  const type = event.type.split('.', 1)[0]!;
  const data = { ...event.data, object: maskRecord(type, event.data.object) };
  if (event.data.previous_attributes !== undefined)
    data.previous_attributes = maskRecord(type, event.data.previous_attributes);
  return { ...event, data };
}
