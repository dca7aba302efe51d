/**
 * The statement the ceilings read customers with: one customer's JSON, built by the
 * database as the API's own read builds it (src/resources/customers/customer-json.repo.ts,
 * the same keys, nested objects and membership look-ups), written out by hand here so a
 * ceiling depends on nothing of ours. `dialect` is 'sqlite' or 'postgres'; the statement
 * answers `created_at`, `id` and `record` (JSON text); `$cutoff` stands for the date an
 * adult is born on or before, bound by the caller.
 */
export function customerRecordSql(dialect, cutoff) {
  const pg = dialect === 'postgres';
  const object = (pairs) =>
    `${pg ? 'json_build_object' : 'json_object'}(${pairs.map(([k, v]) => `'${k}', ${v}`).join(', ')})`;
  const bool = (condition) => (pg ? `(${condition})` : `json(case when ${condition} then 'true' else 'false' end)`);
  const instant = (ms) =>
    pg
      ? `to_char(to_timestamp(${ms} / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : `strftime('%Y-%m-%dT%H:%M:%fZ', ${ms} / 1000.0, 'unixepoch')`;
  const agg = (value, order) =>
    pg ? `coalesce(json_agg(${value} order by ${order}), '[]'::json)` : `json_group_array(${value} order by ${order})`;
  const empty = pg ? `'[]'::json` : `json('[]')`;
  const tags = `(select ${agg(
    object([
      ['id', 'ct.tag_id'],
      ['name', 't.name'],
      ['added_at', instant('ct.added_at')],
    ]),
    'ct.added_at asc nulls first, ct.tag_id',
  )} from customer_tags ct join tags t on t.id = ct.tag_id where ct.workspace_id = c.workspace_id and ct.customer_id = c.id)`;
  const lists = `(select ${agg(
    object([
      ['id', 'cl.list_id'],
      ['name', 'l.name'],
      ['status', 'cl.status'],
      ['added_at', instant('cl.added_at')],
      ['unsubscribed_at', instant('cl.unsubscribed_at')],
    ]),
    'cl.added_at asc nulls first, cl.list_id',
  )} from customer_lists cl join lists l on l.id = cl.list_id where cl.workspace_id = c.workspace_id and cl.customer_id = c.id)`;
  const record = object([
    ['id', 'c.id'],
    ['object', `'customer'`],
    ['first_name', 'c.first_name'],
    ['last_name', 'c.last_name'],
    ['nickname', 'c.nickname'],
    ['email', 'c.email'],
    ['phone', 'c.phone'],
    ['date_of_birth', 'c.date_of_birth'],
    ['company', 'c.company'],
    [
      'address',
      object([
        ['line1', 'c.address_line1'],
        ['line2', 'c.address_line2'],
        ['suburb', 'c.address_suburb'],
        ['state', 'c.address_state'],
        ['postcode', 'c.address_postcode'],
        ['country', 'c.address_country'],
      ]),
    ],
    [
      'adult',
      `case when c.date_of_birth is not null then ${bool(`c.date_of_birth <= ${cutoff}`)} when c.adult is null then null else ${bool('c.adult = 1')} end`,
    ],
    ['marketing_consent', bool('c.marketing_consent = 1')],
    [
      'membership',
      object([
        ['member', bool('c.member = 1')],
        ['tier', 'c.member_tier'],
      ]),
    ],
    ['tags', `case when c.tag_count > 0 then ${tags} else ${empty} end`],
    ['lists', `case when c.list_count > 0 then ${lists} else ${empty} end`],
    ['livemode', bool('c.livemode = 1')],
    ['created_at', instant('c.created_at')],
    ['updated_at', instant('c.updated_at')],
    ['version', 'cast(c.version as text)'],
  ]);
  return `select c.created_at, c.id, ${pg ? `(${record})::text` : record} as record from customers c`;
}

/** A live customer of the workspace, on PostgreSQL: $2 is the workspace's id. */
export const PG_LIVE = 'c.workspace_id = $2 and c.livemode = 1 and c.deleted_at is null';

/**
 * bare_fastify_pg's read of one customer, named (prepared once per connection), which
 * bare_fastify_pg_limits runs too: values [adultCutoff(), workspace id, customer id].
 */
export const PG_ONE = { name: 'one', text: `${customerRecordSql('postgres', '$1')} where ${PG_LIVE} and c.id = $3` };

/** The date of birth on or before which a customer is an adult today (YYYY-MM-DD). */
export function adultCutoff() {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - 18);
  return d.toISOString().slice(0, 10);
}
