import { sql, type Kysely } from 'kysely';

/**
 * The read surface and keys. Every list index leads with workspace (and mode where the
 * collection has test rows) and ends with (created_at, id): the newest-first keyset
 * order, so a page is an index range scan at any table size.
 */
const DOC_TABLES = ['venues', 'activities', 'packages', 'events'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('limits', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('staff')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('staff_workspace_email', ['workspace_id', 'email'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('access', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('can_read', 'text', (c) => c.notNull())
    .addColumn('can_write', 'text', (c) => c.notNull())
    .addColumn('contacts_masked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('paused_at', 'bigint')
    .addColumn('pause_reason', 'text')
    .addColumn('revoked_at', 'bigint')
    .addColumn('limits', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_by', 'text')
    .addColumn('agreed_by', 'text')
    .addColumn('agreed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('api_keys_updated').on('api_keys').column('updated_at').execute();

  for (const table of DOC_TABLES) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_page`).on(table).columns(['workspace_id', 'created_at', 'id']).execute();
    await db.schema.createIndex(`${table}_updated`).on(table).columns(['workspace_id', 'updated_at']).execute();
  }

  for (const table of ['tags', 'lists'] as const) {
    let builder = db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull());
    if (table === 'lists') {
      builder = builder
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('kind', 'text');
    }
    await builder
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_page`).on(table).columns(['workspace_id', 'created_at', 'id']).execute();
    await db.schema.createIndex(`${table}_updated`).on(table).columns(['workspace_id', 'updated_at']).execute();
  }

  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text')
    .addColumn('nickname', 'text')
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('date_of_birth', 'text')
    .addColumn('company', 'text')
    .addColumn('address_line1', 'text')
    .addColumn('address_line2', 'text')
    .addColumn('address_suburb', 'text')
    .addColumn('address_state', 'text')
    .addColumn('address_postcode', 'text')
    .addColumn('address_country', 'text')
    .addColumn('adult', 'integer')
    .addColumn('marketing_consent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('member', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('member_tier', 'text')
    .addColumn('gender', 'text')
    .addColumn('how_heard_about_us', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_by_key_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('customers_page')
    .on('customers')
    .columns(['workspace_id', 'livemode', 'created_at', 'id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('customers_updated')
    .on('customers')
    .columns(['workspace_id', 'livemode', 'updated_at'])
    .execute();
  // One customer per email per workspace and mode (DECISIONS "Customers").
  await db.schema
    .createIndex('customers_email')
    .on('customers')
    .columns(['workspace_id', 'livemode', 'email'])
    .unique()
    .where((eb) => eb.and([eb(sql.ref('email'), 'is not', null), eb(sql.ref('deleted_at'), 'is', null)]))
    .execute();
  await db.schema.createIndex('customers_created_by_key').on('customers').column('created_by_key_id').execute();

  await db.schema
    .createTable('customer_tags')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('tag_id', 'text', (c) => c.notNull())
    .addColumn('added_at', 'bigint')
    .addColumn('added_by_key_id', 'text')
    .addPrimaryKeyConstraint('customer_tags_pk', ['customer_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('customer_tags_key').on('customer_tags').column('added_by_key_id').execute();

  await db.schema
    .createTable('customer_lists')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('list_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('added_at', 'bigint')
    .addColumn('unsubscribed_at', 'bigint')
    .addColumn('added_by_key_id', 'text')
    .addPrimaryKeyConstraint('customer_lists_pk', ['customer_id', 'list_id'])
    .execute();
  await db.schema.createIndex('customer_lists_key').on('customer_lists').column('added_by_key_id').execute();

  const docColumns = (table: string) =>
    db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull());

  await docColumns('bookings')
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('venue_id', 'text')
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('scheduled_at', 'bigint')
    .execute();
  await docColumns('orders')
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('booking_id', 'text')
    .addColumn('venue_id', 'text')
    .addColumn('number', 'text', (c) => c.notNull())
    .execute();
  await docColumns('tickets')
    .addColumn('event_id', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('order_id', 'text')
    .execute();
  await docColumns('gift_cards').addColumn('holder_id', 'text').addColumn('buyer_id', 'text').execute();

  const pageIndex = (table: string, lead: string[]) =>
    db.schema
      .createIndex(`${table}_${lead.slice(1).join('_') || 'page'}`)
      .on(table)
      .columns([...lead, 'created_at', 'id'])
      .execute();
  for (const table of ['bookings', 'orders']) {
    await pageIndex(table, ['workspace_id', 'livemode']);
    await db.schema
      .createIndex(`${table}_updated`)
      .on(table)
      .columns(['workspace_id', 'livemode', 'updated_at'])
      .execute();
    // Ends in the page order, so a number look-up is one range even where the planner has no statistics.
    await pageIndex(table, ['workspace_id', 'livemode', 'number']);
  }
  await pageIndex('bookings', ['workspace_id', 'livemode', 'venue_id']);
  await db.schema
    .createIndex('bookings_scheduled')
    .on('bookings')
    .columns(['workspace_id', 'livemode', 'scheduled_at'])
    .execute();
  await pageIndex('orders', ['workspace_id', 'livemode', 'customer_id']);
  await pageIndex('orders', ['workspace_id', 'livemode', 'booking_id']);
  await pageIndex('orders', ['workspace_id', 'livemode', 'venue_id']);
  for (const table of ['tickets', 'gift_cards']) {
    await pageIndex(table, ['workspace_id']);
    await db.schema.createIndex(`${table}_updated`).on(table).columns(['workspace_id', 'updated_at']).execute();
  }
  await pageIndex('tickets', ['workspace_id', 'event_id']);
  await pageIndex('tickets', ['workspace_id', 'customer_id']);
  await pageIndex('tickets', ['workspace_id', 'order_id']);
  await pageIndex('gift_cards', ['workspace_id', 'holder_id']);
  await pageIndex('gift_cards', ['workspace_id', 'buyer_id']);

  await db.schema
    .createTable('meta')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('001-core is the first migration; drop the database instead');
}
