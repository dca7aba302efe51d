import { PreparedInsertMany } from '../../db/prepared.ts';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { RequestLogTable } from '../../db/tables/activity.ts';

/** The request log's writes (batches, request-log-writer.ts), reads (by key, by id) and purge (025-request-log). */

/** Without bodies: a list shows the rows, a row's page its bodies. */
export type RequestRowHead = Omit<RequestLogTable, 'request_body' | 'response_body'>;

const HEAD_COLUMNS = [
  'id',
  'workspace_id',
  'key_id',
  'method',
  'path',
  'status',
  'code',
  'duration_ms',
  'ip',
  'user_agent',
  'version',
  'truncated',
  'created_at',
] as const;

// A batch's row count varies, so a plain multi-row INSERT would be compiled and prepared anew
// for every batch; this one is compiled once per power of two. A request id is unique, but a
// row written twice (a retried batch whose COMMIT did land) is not an error.
const INSERT = new PreparedInsertMany<RequestLogTable>([...HEAD_COLUMNS, 'request_body', 'response_body'], (db, rows) =>
  db
    .insertInto('request_log')
    .values(rows as unknown as RequestLogTable[])
    .onConflict((oc) => oc.doNothing()),
);

export function insertRequestRows(tx: Tx, rows: readonly RequestLogTable[]): Promise<void> {
  return INSERT.run(tx, rows);
}

export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx';

export interface KeyRequestsQuery {
  status?: StatusClass;
  method?: string;
  /** Rows older than this one (the row's created_at and id): the next page. */
  before?: { createdAt: number; id: string };
  limit: number;
}

/** A key's requests, newest first (request_log_key). */
export async function keyRequests(db: Queryable, keyId: string, query: KeyRequestsQuery): Promise<RequestRowHead[]> {
  let rows = db.selectFrom('request_log').select(HEAD_COLUMNS).where('key_id', '=', keyId);
  if (query.status) {
    const low = Number(query.status[0]) * 100;
    rows = rows.where('status', '>=', low).where('status', '<', low + 100);
  }
  if (query.method) rows = rows.where('method', '=', query.method);
  const before = query.before;
  if (before)
    rows = rows.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  return rows.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
}

/** One request with its bodies; `workspaceId` when a person of that workspace asks. */
export async function findRequest(
  db: Queryable,
  id: string,
  workspaceId: string | null,
): Promise<RequestLogTable | undefined> {
  let row = db.selectFrom('request_log').selectAll().where('id', '=', id);
  if (workspaceId !== null) row = row.where('workspace_id', '=', workspaceId);
  return row.executeTakeFirst();
}

export async function deleteRequestsBefore(tx: Tx, before: number, limit: number): Promise<number> {
  const result = await tx
    .deleteFrom('request_log')
    .where('id', 'in', (eb) => eb.selectFrom('request_log').select('id').where('created_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
