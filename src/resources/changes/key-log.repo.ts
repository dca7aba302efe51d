import type { Queryable } from '../../db/schema.ts';
import { toChange, type Change } from './change.model.ts';

type LogKey = { at: number; customer_version: number; id: string };

/** Newest first: the log's page order. */
const newestFirst = (a: LogKey, b: LogKey) =>
  Number(b.at) - Number(a.at) || b.customer_version - a.customer_version || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** A key's log is counted up to this many rows; past it the page says "more than". */
export const KEY_LOG_COUNTED = 10_000;

/**
 * One page of a key's log, newest first: the key's own changes and the undos of them
 * (recorded as the person's changes, pointing at the change they revert). Both are one range
 * of the (coalesce(key_id, reverts_key_id), at, version, id) index. The range is counted up
 * to KEY_LOG_COUNTED rows, so a key with a long log is never counted whole (`total` null:
 * more than that). A page's ids are read from the index, from the newest end or, for a page
 * in the older half of a counted log, from the oldest, and then its rows by id, so a page
 * reads no table row but its own. Undo rows a server older than 017-change-log-undo-index
 * wrote name no key; the few there are (only while both versions serve) are found from their
 * partial index and merged in.
 */
export async function keyLogPage(
  db: Queryable,
  keyId: string,
  page: { offset: number; limit: number },
): Promise<{ changes: Change[]; total: number | null; older: boolean }> {
  const ofKey = db.selectFrom('change_log').where((eb) => eb(eb.fn.coalesce('key_id', 'reverts_key_id'), '=', keyId));
  const [counted, unfilled] = await Promise.all([
    db
      .selectFrom(
        ofKey
          .select('id')
          .limit(KEY_LOG_COUNTED + 1)
          .as('r'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('change_log')
      .select(['at', 'customer_version', 'id'])
      .where('reverts', 'is not', null)
      .where('reverts_key_id', 'is', null)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('change_log as c')
            .select('c.id')
            .whereRef('c.id', '=', 'change_log.reverts')
            .where('c.key_id', '=', keyId),
        ),
      )
      .execute(),
  ]);
  const indexed = Number(counted.n);
  const total = indexed > KEY_LOG_COUNTED ? null : indexed + unfilled.length;

  const range = (dir: 'asc' | 'desc', offset: number, limit: number) =>
    ofKey
      .select(['at', 'customer_version', 'id'])
      .orderBy('at', dir)
      .orderBy('customer_version', dir)
      .orderBy('id', dir)
      .offset(offset)
      .limit(limit)
      .execute();
  // One row past the page when the log is not counted whole: whether there is an older page.
  const end = total === null ? page.offset + page.limit + 1 : Math.min(page.offset + page.limit, total);
  let picked: LogKey[] = [];
  if (page.offset >= end) picked = [];
  else if (unfilled.length > 0) {
    // The index's rows down to the page's end, merged with the unfilled ones.
    picked = [...(await range('desc', 0, end)), ...unfilled].sort(newestFirst).slice(page.offset, end);
  } else if (total !== null && page.offset > total - end) {
    picked = (await range('asc', total - end, end - page.offset)).reverse();
  } else {
    picked = await range('desc', page.offset, end - page.offset);
  }
  const older = total === null ? picked.length > page.limit : page.offset + page.limit < total;
  picked = picked.slice(0, page.limit);
  if (picked.length === 0) return { changes: [], total, older };
  const rows = await db
    .selectFrom('change_log')
    .selectAll()
    .where(
      'id',
      'in',
      picked.map((p) => p.id),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { changes: picked.flatMap((p) => (byId.has(p.id) ? [toChange(byId.get(p.id)!)] : [])), total, older };
}
