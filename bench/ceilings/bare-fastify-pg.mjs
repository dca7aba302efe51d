import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { adultCutoff, customerRecordSql, PG_LIVE, PG_ONE } from './customer-sql.mjs';

/**
 * Ceilings `bare_fastify_pg` and `bare_fastify_pg_insert` for `npm run bench -- --database
 * postgres`: bare Fastify routes on a pg pool of the API's size (POOL_SIZE) over the same
 * PostgreSQL database (DATABASE_URL, WORKSPACE_ID), each answering with one named statement
 * (prepared once per connection). No auth, limits, validation or mapping.
 *
 * - GET /customers/:id: the customer's JSON as the database builds it, sent as text;
 * - GET /customers?limit=N[&after=CURSOR]: newest first by (created_at, id), the page's
 *   records joined as text; next_cursor is `<created_at>:<id>` of the last, for the walk;
 * - POST /customers {first_name, email}: one row into customers (a workspace of its own,
 *   WORKSPACE_ID + `_ceiling`, so the API never lists them), its own transaction: 201 {id}.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
const workspaceId = process.env.WORKSPACE_ID;
const select = customerRecordSql('postgres', '$1');
const order = 'order by c.created_at desc, c.id desc limit $3';
const first = { name: 'first', text: `${select} where ${PG_LIVE} ${order}` };
const after = { name: 'after', text: `${select} where ${PG_LIVE} and (c.created_at, c.id) < ($4, $5) ${order}` };
const insert = {
  name: 'insert',
  text:
    'insert into customers (id, workspace_id, livemode, first_name, email, marketing_consent, member, version, created_at, updated_at) ' +
    'values ($1, $2, 1, $3, $4, 0, 0, 1, $5, $5)',
};
const json = 'application/json; charset=utf-8';

const app = Fastify({ logger: false });
app.get('/customers/:id', async (req, reply) => {
  const { rows } = await pool.query({ ...PG_ONE, values: [adultCutoff(), workspaceId, req.params.id] });
  if (rows.length === 0) return reply.code(404).type(json).send('{"error":"not found"}');
  return reply.type(json).send(rows[0].record);
});
app.get('/customers', async (req, reply) => {
  const limit = Math.min(Math.max(Number(req.query.limit ?? 10) || 10, 1), 100);
  let rows;
  if (req.query.after) {
    const cursor = String(req.query.after);
    const colon = cursor.indexOf(':');
    const values = [adultCutoff(), workspaceId, limit + 1, Number(cursor.slice(0, colon)), cursor.slice(colon + 1)];
    ({ rows } = await pool.query({ ...after, values }));
  } else {
    ({ rows } = await pool.query({ ...first, values: [adultCutoff(), workspaceId, limit + 1] }));
  }
  const hasMore = rows.length > limit;
  if (hasMore) rows.pop();
  const last = rows[rows.length - 1];
  const cursor = hasMore ? `,"next_cursor":"${last.created_at}:${last.id}"` : '';
  return reply.type(json).send(`{"data":[${rows.map((r) => r.record).join(',')}],"has_more":${hasMore}${cursor}}`);
});
app.post('/customers', async (req, reply) => {
  const body = req.body ?? {};
  const id = `cus_${randomBytes(12).toString('base64url')}`;
  const values = [id, `${workspaceId}_ceiling`, String(body.first_name ?? 'Bench'), body.email ?? null, Date.now()];
  await pool.query({ ...insert, values });
  return reply.code(201).type(json).send(JSON.stringify({ id }));
});
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
const { port } = app.server.address();
process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
process.once('SIGTERM', () => void app.close().then(() => pool.end().then(() => process.exit(0))));
