import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import {
  changeValues,
  inTransaction,
  insertChange,
  insertEvent,
  namedInsert,
  random62,
  timeOrdered,
} from './pg-rows.mjs';

/**
 * Ceiling `bare_fastify_pg_write_tx` for `npm run bench -- --database postgres`'s create and
 * update: what a create writes on PostgreSQL, in one transaction of plain named statements
 * (prepared once per connection) on a pg pool of the API's size (POOL_SIZE). The rows are a
 * create's (src/resources/writes/write.pipeline.ts): the POST's stored answer
 * (idempotency_keys), the customer, its change-log row and its event (webhook_events), in
 * the API's own tables (DATABASE_URL), so the same indexes, with the API's columns, ids of
 * its shapes and JSON of its size. No idempotency look-up or lock, no email check, no
 * statement built per request: the rows alone, committed together, as a write can be no
 * cheaper. They go to a workspace of their own (WORKSPACE_ID), so the API never lists them.
 *
 * POST /customers {first_name, email} with an Idempotency-Key: 201 and the customer's JSON.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
const workspaceId = process.env.WORKSPACE_ID;
const json = 'application/json; charset=utf-8';

const keyId = `key_${random62(22)}`;

const insertAnswer = namedInsert('answer', 'idempotency_keys', [
  'key_id',
  'idempotency_key',
  'workspace_id',
  'fingerprint',
  'status_code',
  'content_type',
  'headers',
  'body',
  'request_id',
  'created_at',
]);
// The customer's other columns are null or their defaults, as a create with a name and an email leaves them.
const insertCustomer = namedInsert('customer', 'customers', [
  'id',
  'workspace_id',
  'livemode',
  'first_name',
  'email',
  'marketing_consent',
  'member',
  'version',
  'created_by_key_id',
  'created_at',
  'updated_at',
]);

const nulls = (keys) => Object.fromEntries(keys.map((k) => [k, null]));
const ADDRESS = ['line1', 'line2', 'suburb', 'state', 'postcode', 'country'];

/** The customer as the API answers it, stores it for a replay and sends it in its event. */
function customerJson(id, firstName, email, at) {
  return JSON.stringify({
    id,
    object: 'customer',
    first_name: firstName,
    ...nulls(['last_name', 'nickname']),
    email,
    ...nulls(['phone', 'date_of_birth', 'company']),
    address: nulls(ADDRESS),
    adult: null,
    marketing_consent: false,
    membership: { member: false, tier: null },
    tags: [],
    lists: [],
    livemode: true,
    created_at: at,
    updated_at: at,
    version: '1',
  });
}

/** The editable fields after the create, as its change-log row keeps them. */
function changedFields(firstName, email) {
  return JSON.stringify({
    first_name: firstName,
    ...nulls(['last_name', 'nickname']),
    email,
    ...nulls(['phone', 'date_of_birth', 'company', 'gender', 'adult']),
    marketing_consent: 0,
    how_heard_about_us: null,
    ...nulls(ADDRESS.map((part) => `address_${part}`)),
  });
}

const app = Fastify({ logger: false });
app.post('/customers', async (req, reply) => {
  const body = req.body ?? {};
  const firstName = String(body.first_name ?? 'Bench');
  const email = body.email ?? null;
  const now = Date.now();
  const at = new Date(now).toISOString();
  const id = `cus_${random62(22)}`;
  const requestId = timeOrdered('req');
  const eventId = timeOrdered('whe');
  const record = customerJson(id, firstName, email, at);
  const payload = `{"id":"${eventId}","object":"webhook_event","type":"customer.created","created_at":"${at}","livemode":true,"data":{"object":${record}}}`;
  const fingerprint = createHash('sha256')
    .update(`POST\n/customers\n${JSON.stringify(body)}`)
    .digest('hex');
  const key = String(req.headers['idempotency-key']);
  await inTransaction(pool, async (client) => {
    const answer = [keyId, key, workspaceId, fingerprint, 201, json, '{"ETag":"\\"1\\""}', record, requestId, now];
    await client.query({ ...insertAnswer, values: answer });
    await client.query({ ...insertCustomer, values: [id, workspaceId, 1, firstName, email, 0, 0, 1, keyId, now, now] });
    const after = changedFields(firstName, email);
    const change = { workspaceId, now, keyId, requestId, action: 'customer.create', customerId: id, version: 1 };
    await client.query({ ...insertChange, values: changeValues({ ...change, before: null, after }) });
    await client.query({ ...insertEvent, values: [eventId, workspaceId, 1, 'customer.created', payload, now] });
  });
  return reply.code(201).type(json).header('etag', '"1"').send(record);
});
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
const { port } = app.server.address();
process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
process.once('SIGTERM', () => void app.close().then(() => pool.end().then(() => process.exit(0))));
