import { randomInt } from 'node:crypto';

/** SPEC "Conventions": a lowercase prefix, an underscore, then 22 characters. */
const ID_PREFIX = {
  customer: 'cus',
  tag: 'tag',
  list: 'lst',
  booking: 'bkg',
  venue: 'ven',
  activity: 'act',
  package: 'pkg',
  event: 'evt',
  event_date: 'evd',
  ticket: 'tkt',
  order: 'ord',
  gift_card: 'gft',
  key: 'key',
  request: 'req',
  workspace: 'wsp',
  staff: 'stf',
  change: 'chg',
  email: 'eml',
  audit: 'aud',
  webhook: 'wh',
  webhook_event: 'whe',
  webhook_delivery: 'whd',
  undo_job: 'udj',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * n base62 characters of uniform randomness. randomInt draws without modulo bias from the
 * CSPRNG through Node's own cache of its bytes, where a randomBytes call per id costs a few µs.
 */
export function randomBase62(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += BASE62[randomInt(62)];
  return out;
}

/**
 * Kinds whose ids begin with their creation time: rows that every write adds (its change-log
 * rows, its webhook event and deliveries) and the request log's, so a new row's id lands on
 * the last page of its index rather than on a random page a COMMIT must write again. 8 characters
 * of milliseconds (in order until the year 8888), then 14 random (83 bits, as KSUID-style
 * message ids have): unique, and unguessable enough for ids that grant nothing.
 * docs/behaviour.md "Ids" says so; DECISIONS' 131 random bits stay for every other kind.
 */
const TIME_ORDERED: ReadonlySet<IdKind> = new Set<IdKind>(['change', 'webhook_event', 'webhook_delivery', 'request']);

export function newId(kind: IdKind): string {
  if (TIME_ORDERED.has(kind)) return `${ID_PREFIX[kind]}_${toBase62(Date.now(), 8)}${randomBase62(14)}`;
  return `${ID_PREFIX[kind]}_${randomBase62(22)}`;
}

const ID_SHAPE = /^([a-z]+)_([0-9A-Za-z]{22})$/;

/** True when `id` is well formed and of this kind; anything else is a 404 upstream. */
export function isIdOf(kind: IdKind, id: string): boolean {
  const m = ID_SHAPE.exec(id);
  return m !== null && m[1] === ID_PREFIX[kind];
}

export function toBase62(n: bigint | number, width: number): string {
  let v = BigInt(n);
  let out = '';
  while (v > 0n) {
    out = BASE62[Number(v % 62n)] + out;
    v /= 62n;
  }
  return out.padStart(width, '0');
}
