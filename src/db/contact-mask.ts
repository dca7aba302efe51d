import type SQLite from 'better-sqlite3';
import { sql, type Expression } from 'kysely';
import { maskEmail, maskPhone } from '../lib/mask.ts';
import type { JsonDialect } from './json-record.ts';

/**
 * DECISIONS "Keys": a contacts-masked key's emails and phones, masked by the statement that
 * reads them (src/lib/mask.ts says how). SQLite runs lib/mask.ts itself, as functions of the
 * connection; PostgreSQL spells the same rule in SQL (test/customers/customer-json.test.ts holds
 * both to lib/mask.ts).
 */
export function registerContactMasks(database: SQLite.Database): void {
  database.function('venue_mask_email', { deterministic: true }, (email: unknown) => maskEmail(email as string | null));
  database.function('venue_mask_phone', { deterministic: true }, (phone: unknown) => maskPhone(phone as string | null));
}

/** `j***@example.com`: the first character and the part after the last `@`; `***` without one. */
export function maskedEmail(dialect: JsonDialect, email: Expression<string | null>): Expression<string | null> {
  if (dialect === 'sqlite') return sql`venue_mask_email(${email})`;
  // The last @, counted from the end; none, or only at the start, masks the whole address.
  const fromEnd = sql`strpos(reverse(${email}), '@')`;
  return sql`case when ${fromEnd} = 0 or length(${email}) - ${fromEnd} < 1 then '***'
    else left(${email}, 1) || '***@' || right(${email}, ${fromEnd} - 1) end`;
}

/** `+*********12`: a star for each digit but the last two, which show (all stars for two or fewer). */
export function maskedPhone(dialect: JsonDialect, phone: Expression<string | null>): Expression<string | null> {
  if (dialect === 'sqlite') return sql`venue_mask_phone(${phone})`;
  const digits = sql`regexp_replace(${phone}, '[^0-9]', '', 'g')`;
  return sql`case when length(${digits}) <= 2 then '+' || repeat('*', length(${digits}))
    else '+' || repeat('*', length(${digits}) - 2) || right(${digits}, 2) end`;
}
