import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

/**
 * Ceiling `bare_fastify_insert` for `npm run bench`'s create and update: a bare Fastify
 * route inserting one customer row per request, each in its own transaction, into the same
 * SQLite file (DB_PATH) and table as the API, so it maintains the same indexes, with the
 * API's durability settings (WAL, synchronous=FULL: DECISIONS "Durability"). The rows go
 * to a workspace of their own (WORKSPACE_ID), so the API never lists them.
 *
 * POST /customers {first_name, email}: 201 {id}.
 */
const db = new Database(process.env.DB_PATH);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -65536');
const workspaceId = process.env.WORKSPACE_ID;
const insert = db.prepare(
  'insert into customers (id, workspace_id, livemode, first_name, email, marketing_consent, member, version, created_at, updated_at) ' +
    'values (?, ?, 1, ?, ?, 0, 0, 1, ?, ?)',
);
const insertOne = db.transaction((id, firstName, email, now) =>
  insert.run(id, workspaceId, firstName, email, now, now),
);

const app = Fastify({ logger: false });
app.post('/customers', (req, reply) => {
  const body = req.body ?? {};
  const id = `cus_${randomBytes(12).toString('base64url')}`;
  const now = Date.now();
  insertOne(id, String(body.first_name ?? 'Bench'), body.email ?? null, now);
  reply.code(201).type('application/json; charset=utf-8').send(JSON.stringify({ id }));
});
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
const { port } = app.server.address();
process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
