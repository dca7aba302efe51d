import type { Queryable, Tx } from '../../db/schema.ts';
import { holdTransactionLock } from '../../db/transaction-lock.ts';
import type { ConsoleSignInFailureTable } from '../../db/tables/console.ts';

/** Failed sign-ins and the lock-outs they lead to (005-console). */

/**
 * Makes this transaction the only one counting for these lock-out subjects until it ends, so
 * each count sees every attempt before it. Always in one order (the email's, then the
 * address's), so no two transactions wait for each other.
 */
export async function holdSubjects(tx: Tx, subjects: string[]): Promise<void> {
  for (const subject of subjects) await holdTransactionLock(tx, `sign-in ${subject}`);
}

export async function recordFailure(tx: Tx, row: ConsoleSignInFailureTable): Promise<void> {
  await tx.insertInto('console_sign_in_failures').values(row).execute();
}

export async function countFailures(
  db: Queryable,
  by: { column: 'email' | 'address'; value: string },
  since: number,
): Promise<number> {
  const row = await db
    .selectFrom('console_sign_in_failures')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where(by.column, '=', by.value)
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function clearEmailFailures(tx: Tx, email: string): Promise<void> {
  await tx.deleteFrom('console_sign_in_failures').where('email', '=', email).execute();
}

export async function deleteFailuresBefore(tx: Tx, before: number): Promise<void> {
  await tx.deleteFrom('console_sign_in_failures').where('at', '<=', before).execute();
  await tx.deleteFrom('console_lockouts').where('until', '<=', before).execute();
}

export async function lockUntil(tx: Tx, subject: string, until: number): Promise<void> {
  await tx
    .insertInto('console_lockouts')
    .values({ subject, until })
    .onConflict((oc) => oc.column('subject').doUpdateSet({ until }))
    .execute();
}

export async function unlock(tx: Tx, subject: string): Promise<void> {
  await tx.deleteFrom('console_lockouts').where('subject', '=', subject).execute();
}

/** The latest end of any lock-out on these subjects that is still running at `now`, else null. */
export async function lockedUntil(db: Queryable, subjects: string[], now: number): Promise<number | null> {
  const row = await db
    .selectFrom('console_lockouts')
    .select((eb) => eb.fn.max('until').as('until'))
    .where('subject', 'in', subjects)
    .where('until', '>', now)
    .executeTakeFirst();
  return row?.until == null ? null : Number(row.until);
}
