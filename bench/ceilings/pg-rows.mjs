import { randomInt } from 'node:crypto';

/**
 * What the PostgreSQL write floors (bare_fastify_pg_write_tx, bare_fastify_pg_update_tx)
 * share: ids shaped as the API's, named INSERTs, and one transaction a request.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const random62 = (n) => Array.from({ length: n }, () => BASE62[randomInt(62)]).join('');

const base62 = (n, width) => {
  let out = '';
  for (let v = n; out.length < width; v = Math.floor(v / 62)) out = BASE62[v % 62] + out;
  return out;
};

// As the API's ids (src/lib/ids.ts): a change's, an event's and a request's begin with the
// time, so each new row lands on the last page of its index, as the API's do.
export const timeOrdered = (prefix) => `${prefix}_${base62(Date.now(), 8)}${random62(14)}`;

/** An INSERT of one row into `table`, named (prepared once per connection). */
export const namedInsert = (name, table, columns) => ({
  name,
  text: `insert into ${table} (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
});

/** A change-log row of a key's change to one customer, as both floors write it. */
export const insertChange = namedInsert('change', 'change_log', [
  'id',
  'workspace_id',
  'livemode',
  'at',
  'actor_kind',
  'actor_id',
  'key_id',
  'request_id',
  'action',
  'object',
  'object_id',
  'customer_version',
  'before',
  'after',
]);

/** insertChange's values: `before` is null for a create, as the API writes it. */
export const changeValues = ({ workspaceId, now, keyId, requestId, action, customerId, version, before, after }) => [
  timeOrdered('chg'),
  workspaceId,
  1,
  now,
  'key',
  keyId,
  keyId,
  requestId,
  action,
  'customer',
  customerId,
  version,
  before,
  after,
];

/** An event row, as both floors write it. */
export const insertEvent = namedInsert('event', 'webhook_events', [
  'id',
  'workspace_id',
  'livemode',
  'type',
  'payload',
  'created_at',
]);

/** `work(client)` in one transaction on a client of `pool`: committed if it resolves, rolled back if it throws. */
export async function inTransaction(pool, work) {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback');
    throw err;
  } finally {
    client.release();
  }
}
