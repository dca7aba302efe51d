import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { adultCutoff, customerRecordSql } from './customer-sql.mjs';

/**
 * Ceiling `bare_fastify_sqlite_get` for get_one: GET /customers/:id runs the API's single
 * statement for one customer (its JSON built by SQLite, customer-sql.mjs) and sends the text.
 *
 * Ceiling `bare_fastify_sqlite` for `npm run bench`'s page_100 and sync: a bare Fastify
 * route reading the same customers from the same SQLite file (DB_PATH, WORKSPACE_ID) with
 * one hand-written prepared statement per shape, newest first by (created_at, id) on the
 * API's own page index, sent with JSON.stringify. No auth, limits, validation or mapping.
 *
 * GET /customers?limit=N[&after=CURSOR]: {data, has_more, next_cursor}, where next_cursor
 * is `<created_at>:<id>` of the last row, for the sync walk.
 */
const db = new Database(process.env.DB_PATH);
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -65536');
const workspaceId = process.env.WORKSPACE_ID;
const live = 'workspace_id = ? and livemode = 1 and deleted_at is null';
const order = 'order by created_at desc, id desc limit ?';
const first = db.prepare(`select * from customers where ${live} ${order}`);
const after = db.prepare(`select * from customers where ${live} and (created_at, id) < (?, ?) ${order}`);
const one = db.prepare(
  `${customerRecordSql('sqlite', '?')} where c.workspace_id = ? and c.livemode = 1 and c.deleted_at is null and c.id = ?`,
);

const app = Fastify({ logger: false });
app.get('/customers/:id', (req, reply) => {
  const row = one.get(adultCutoff(), workspaceId, req.params.id);
  if (!row) return reply.code(404).type('application/json; charset=utf-8').send('{"error":"not found"}');
  reply.type('application/json; charset=utf-8').send(row.record);
});
app.get('/customers', (req, reply) => {
  const limit = Math.min(Math.max(Number(req.query.limit ?? 10) || 10, 1), 100);
  let rows;
  if (req.query.after) {
    const cursor = String(req.query.after);
    const colon = cursor.indexOf(':');
    rows = after.all(workspaceId, Number(cursor.slice(0, colon)), cursor.slice(colon + 1), limit + 1);
  } else {
    rows = first.all(workspaceId, limit + 1);
  }
  const hasMore = rows.length > limit;
  if (hasMore) rows.pop();
  const last = rows[rows.length - 1];
  const page = { data: rows, has_more: hasMore, next_cursor: hasMore ? `${last.created_at}:${last.id}` : undefined };
  reply.type('application/json; charset=utf-8').send(JSON.stringify(page));
});
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
const { port } = app.server.address();
process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
