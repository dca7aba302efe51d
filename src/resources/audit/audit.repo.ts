import type { Queryable, Tx } from '../../db/schema.ts';
import type { AuditLogTable } from '../../db/tables/console.ts';

/** The audit log (012-audit): one row per entry, paged newest first by (at, id) within a workspace. */
export async function insertAuditRow(tx: Tx, row: AuditLogTable): Promise<void> {
  await tx.insertInto('audit_log').values(row).execute();
}

export interface AuditPageQuery {
  workspaceId: string;
  actor?: string;
  action?: string;
  /** The last row of the page before: rows strictly older than it. */
  after?: { at: number; id: string };
  limit: number;
}

/** One page, newest first: an index range of the workspace (and the filter), never the whole table. */
export async function auditPage(db: Queryable, q: AuditPageQuery): Promise<AuditLogTable[]> {
  let query = db.selectFrom('audit_log').selectAll().where('workspace_id', '=', q.workspaceId);
  if (q.actor !== undefined) query = query.where('actor', '=', q.actor);
  if (q.action !== undefined) query = query.where('action', '=', q.action);
  const after = q.after;
  // `at <=` bounds the index range; the OR alone would make the engine walk every newer row.
  if (after)
    query = query.where('at', '<=', after.at).where((eb) => eb.or([eb('at', '<', after.at), eb('id', '<', after.id)]));
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

export async function deleteAuditBefore(tx: Tx, before: number, limit: number): Promise<number> {
  const result = await tx
    .deleteFrom('audit_log')
    .where('id', 'in', (eb) => eb.selectFrom('audit_log').select('id').where('at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
