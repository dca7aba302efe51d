import Fastify from 'fastify';
import pg from 'pg';
import { adultCutoff, PG_ONE } from './customer-sql.mjs';
import { changeValues, inTransaction, insertChange, insertEvent, random62, timeOrdered } from './pg-rows.mjs';

/**
 * Floor `bare_fastify_pg_update_tx` for `npm run bench -- --database postgres`'s update: what
 * an update does at the least, in one transaction of plain named statements on a pg pool of
 * the API's size (POOL_SIZE) over the API's customers (DATABASE_URL, WORKSPACE_ID): the row
 * changed if its version is the one If-Match names (else 412), the customer read back as GET
 * shows it (bare_fastify_pg's statement), its change-log row and its `customer.updated` event
 * with `previous_attributes`. No idempotency, validation, request log or deliveries look-up.
 *
 * PATCH /customers/:id {nickname} with If-Match "<version>": 200, the customer's JSON and its ETag.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
const workspaceId = process.env.WORKSPACE_ID;
const json = 'application/json; charset=utf-8';
const keyId = `key_${random62(22)}`;

// The old nickname comes from the row the UPDATE locks, so the change log and the event have it.
const update = {
  name: 'update',
  text:
    'with old as (select id, nickname from customers where id = $3 and workspace_id = $4 and livemode = 1 ' +
    'and deleted_at is null and version = $5 for update) ' +
    'update customers c set nickname = $1, updated_at = $2, version = c.version + 1 from old where c.id = old.id ' +
    'returning c.version, old.nickname as before',
};

const app = Fastify({ logger: false });
app.patch('/customers/:id', async (req, reply) => {
  const nickname = String(req.body?.nickname ?? '');
  const version = Number(/"(\d+)"/.exec(String(req.headers['if-match']))?.[1]);
  const now = Date.now();
  const at = new Date(now).toISOString();
  const answered = await inTransaction(pool, async (client) => {
    const changed = await client.query({ ...update, values: [nickname, now, req.params.id, workspaceId, version] });
    if (changed.rowCount === 0) return null;
    const { version: next, before } = changed.rows[0];
    const { rows } = await client.query({ ...PG_ONE, values: [adultCutoff(), workspaceId, req.params.id] });
    const record = rows[0].record;
    const requestId = timeOrdered('req');
    const change = { workspaceId, now, keyId, requestId, action: 'customer.update', customerId: req.params.id };
    // The change log's `before` is the event's previous_attributes.
    const previous = JSON.stringify({ nickname: before });
    const diff = { before: previous, after: JSON.stringify({ nickname }) };
    await client.query({ ...insertChange, values: changeValues({ ...change, version: next, ...diff }) });
    const eventId = timeOrdered('whe');
    const payload = `{"id":"${eventId}","object":"webhook_event","type":"customer.updated","created_at":"${at}","livemode":true,"data":{"object":${record},"previous_attributes":${previous}}}`;
    await client.query({ ...insertEvent, values: [eventId, workspaceId, 1, 'customer.updated', payload, now] });
    return { record, next };
  });
  // Its version moved (or it is gone): the transaction wrote nothing.
  if (!answered) return reply.code(412).type(json).send('{"error":"precondition failed"}');
  return reply.type(json).header('etag', `"${answered.next}"`).send(answered.record);
});
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
const { port } = app.server.address();
process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
process.once('SIGTERM', () => void app.close().then(() => pool.end().then(() => process.exit(0))));
