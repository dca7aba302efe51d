import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { insertBooking, insertList, insertTag, insertVenue } from '../helpers/fixtures.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { type Agent, connectAgent, makeKey } from './mcp-client.ts';
import { shapeOf } from './schema-shape.ts';

/**
 * `venue-api mcp`: the SDK's own client over stdio against a real server process.
 * The tools offered follow the key; reads and writes go through the API with it.
 */
const READS = ['describe_key', 'get_record', 'list_records'];
const WRITES = [
  'add_customer_tag',
  'add_customer_to_list',
  'create_customer',
  'delete_customer',
  'remove_customer_from_list',
  'remove_customer_tag',
  'update_customer',
];
const COLLECTIONS = 'venues,customers,tags,lists,bookings,orders,activities,packages,events,tickets,gift-cards'.split(
  ',',
);

describe.each(ENGINES)('venue-api mcp tools on %s', { timeout: 60_000 }, (engine) => {
  let storage: TestStorage;
  let server: ServerProcess;
  let workspaceId: string;
  const agents: Agent[] = [];
  const agent = async (secret: string) => {
    const a = await connectAgent(server.url, secret);
    agents.push(a);
    return a;
  };

  beforeAll(async () => {
    storage = await freshStorage(engine);
    // Made before the server starts: a first start on an empty database makes a demo instead.
    workspaceId = (await createWorkspace(storage, systemClock, { name: 'Agents' })).id;
    server = await startServer({ DATABASE_URL: storage.url });
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await server?.stop();
    await storage?.drop();
  });

  it('offers a read key its reads, a read-write key its writes too, and a restricted key only what it may do', async () => {
    const read = await makeKey(storage, { workspaceId, mode: 'live', access: 'read' });
    const readWrite = await makeKey(storage, { workspaceId, mode: 'test', access: 'read_write' });
    const restricted = await makeKey(storage, {
      workspaceId,
      mode: 'live',
      access: 'read_write',
      restricted: { canRead: ['customers', 'tags'], canWrite: ['customers.update'] },
    });

    const reader = await agent(read.secret);
    expect(await reader.toolNames()).toEqual(READS);
    const writer = await agent(readWrite.secret);
    expect(await writer.toolNames()).toEqual([...READS, ...WRITES].sort());
    const narrow = await agent(restricted.secret);
    expect(await narrow.toolNames()).toEqual([...READS, 'update_customer'].sort());

    const tools = (await writer.client.listTools()).tools;
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.list_records!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get_record!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.create_customer!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.delete_customer!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.remove_customer_tag!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    for (const tool of tools) expect(tool.description!.length).toBeGreaterThan(60);
    // The collections and filters come from GET /key and /openapi.json.
    const listInput = byName.list_records!.inputSchema as any;
    expect(listInput.properties.collection.enum).toEqual(COLLECTIONS);
    expect(Object.keys(listInput.properties)).toEqual(
      expect.arrayContaining(['limit', 'starting_after', 'updated_since', 'email', 'venue', 'scheduled_from', 'order']),
    );
    const narrowList = (await narrow.client.listTools()).tools.find((t) => t.name === 'list_records')!;
    expect((narrowList.inputSchema as any).properties.collection.enum).toEqual(['customers', 'tags']);
    expect((narrowList.inputSchema as any).properties.venue).toBeUndefined();

    const described = await reader.call('describe_key');
    expect(described.isError).toBe(false);
    expect(described.json()).toMatchObject({ id: read.id, object: 'api_key', access: 'read', mode: 'live' });
  });

  it("create_customer and update_customer take the API's customer body: its fields, types, nulls, enums and required", async () => {
    const a = await agent((await makeKey(storage, { workspaceId, mode: 'test', access: 'read_write' })).secret);
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    const body = (path: string, method: string) =>
      document.paths[path][method].requestBody.content['application/json'].schema;
    const input = Object.fromEntries((await a.client.listTools()).tools.map((t) => [t.name, t.inputSchema as any]));

    expect(shapeOf(body('/customers', 'post')).properties!.address!.properties).toHaveProperty('postcode');
    expect(shapeOf(input.create_customer)).toEqual(shapeOf(body('/customers', 'post')));
    const update = shapeOf(input.update_customer);
    const { id, if_match, ...fields } = update.properties!;
    expect([id, if_match]).toEqual([{ types: ['string'] }, { types: ['string'] }]);
    expect(update.required).toEqual(['id']);
    expect({ types: update.types, required: [], properties: fields }).toEqual(
      shapeOf(body('/customers/{id}', 'patch')),
    );
    // What the API says of a field is what the model reads.
    expect(input.create_customer.properties.email.description).toBe(
      body('/customers', 'post').properties.email.description,
    );
  });

  it('lists, gets, creates, updates and deletes through the API, as compact JSON, recorded against the key', async () => {
    const key = await makeKey(storage, { workspaceId, mode: 'test', access: 'read_write' });
    const a = await agent(key.secret);
    const venue = await insertVenue(storage.db, { workspaceId });
    const booking = await insertBooking(storage.db, { workspaceId, livemode: false }, { venue: venue.id });
    await insertBooking(storage.db, { workspaceId, livemode: false });

    const created = await a.call('create_customer', { first_name: 'Ada', email: 'Ada.Tools@example.com' });
    expect(created.isError).toBe(false);
    expect(created.text).toBe(JSON.stringify(JSON.parse(created.text)));
    const customer = created.json();
    expect(customer).toMatchObject({ object: 'customer', first_name: 'Ada', email: 'ada.tools@example.com' });
    expect(customer.livemode).toBe(false);

    const got = await a.call('get_record', { collection: 'customers', id: customer.id });
    expect(got.json()).toEqual(customer);
    const found = await a.call('list_records', { collection: 'customers', email: 'ADA.TOOLS@example.com' });
    expect(found.json()).toMatchObject({ object: 'list', has_more: false, data: [{ id: customer.id }] });
    const bookings = await a.call('list_records', { collection: 'bookings', venue: venue.id, limit: 5 });
    expect(bookings.json().data.map((b: any) => b.id)).toEqual([booking.id]);
    const stray = await a.call('list_records', { collection: 'customers', venue: venue.id });
    expect(stray.isError).toBe(true);
    expect(stray.text).toMatch(/venue cannot filter customers \(its filters are email, include_deleted\)/);

    const updated = await a.call('update_customer', {
      id: customer.id,
      if_match: customer.version,
      last_name: 'Lovelace',
    });
    expect(updated.json()).toMatchObject({ id: customer.id, last_name: 'Lovelace', version: '2' });
    const stale = await a.call('update_customer', { id: customer.id, if_match: customer.version, last_name: 'Byron' });
    expect(stale.isError).toBe(true);
    expect(stale.text).toMatch(/precondition_failed/);
    expect(stale.text).toMatch(/get_record/);
    expect((await a.call('get_record', { collection: 'customers', id: customer.id })).json().last_name).toBe(
      'Lovelace',
    );

    const tag = await insertTag(storage.db, { workspaceId });
    const list = await insertList(storage.db, { workspaceId });
    const tagged = await a.call('add_customer_tag', { customer: customer.id, tag: tag.id });
    expect(tagged.json().tags.map((t: any) => t.id)).toEqual([tag.id]);
    // The same tagging again writes nothing: the customer's version stays.
    const tagAgain = await a.call('add_customer_tag', { customer: customer.id, tag: tag.id });
    expect(tagAgain.json()).toMatchObject({ version: tagged.json().version, tags: [{ id: tag.id }] });
    expect((await a.call('remove_customer_tag', { customer: customer.id, tag: tag.id })).json().tags).toEqual([]);
    // Tagging again after the removal is a new write, not a replay of the first tagging.
    const retagged = await a.call('add_customer_tag', { customer: customer.id, tag: tag.id });
    expect(retagged.texts).toHaveLength(1);
    expect(retagged.json().tags.map((t: any) => t.id)).toEqual([tag.id]);
    expect((await a.call('get_record', { collection: 'customers', id: customer.id })).json().tags).toHaveLength(1);
    expect((await a.call('remove_customer_tag', { customer: customer.id, tag: tag.id })).json().tags).toEqual([]);
    const listed = await a.call('add_customer_to_list', { customer: customer.id, list: list.id });
    expect(listed.json().lists).toMatchObject([{ id: list.id, status: 'active' }]);
    expect((await a.call('remove_customer_from_list', { customer: customer.id, list: list.id })).json().lists).toEqual(
      [],
    );

    const deleted = await a.call('delete_customer', { id: customer.id });
    expect(deleted.json()).toEqual({ id: customer.id, object: 'customer', deleted: true });
    const gone = await a.call('get_record', { collection: 'customers', id: customer.id });
    expect(gone.isError).toBe(true);
    expect(gone.text).toMatch(/not_found/);

    const changes = await storage.db
      .selectFrom('change_log')
      .select(['action', 'key_id'])
      .where('object_id', '=', customer.id)
      .execute();
    expect(changes.length).toBeGreaterThanOrEqual(6);
    expect(changes.every((c) => c.key_id === key.id)).toBe(true);
  });

  it('a repeated identical create writes once and says so; a different one writes again', async () => {
    const key = await makeKey(storage, { workspaceId, mode: 'live', access: 'read_write' });
    const a = await agent(key.secret);
    const args = { first_name: 'Grace', last_name: 'Hopper', email: 'grace.once@example.com' };
    const first = await a.call('create_customer', args);
    const again = await a.call('create_customer', { email: args.email, last_name: 'Hopper', first_name: 'Grace' });
    expect(first.isError).toBe(false);
    expect(again.json()).toEqual(first.json());
    expect(first.texts).toHaveLength(1);
    expect(again.texts[1]).toMatch(/already made .* wrote nothing new/);
    const rows = await storage.db
      .selectFrom('customers')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('email', '=', args.email)
      .execute();
    expect(rows).toHaveLength(1);
    const creates = await storage.db
      .selectFrom('change_log')
      .select('id')
      .where('key_id', '=', key.id)
      .where('action', '=', 'customer.create')
      .execute();
    expect(creates).toHaveLength(1);

    // Another agent process with the same key derives the same Idempotency-Key.
    const other = await agent(key.secret);
    expect((await other.call('create_customer', args)).json().id).toBe(first.json().id);
    const twin = await a.call('create_customer', { first_name: 'Grace' });
    const twin2 = await a.call('create_customer', { first_name: 'Grace', nickname: 'Amazing' });
    expect(twin2.json().id).not.toBe(twin.json().id);
  });

  it('an unknown id is a tool error naming not_found, for reads and writes', async () => {
    const key = await makeKey(storage, { workspaceId, mode: 'live', access: 'read_write' });
    const a = await agent(key.secret);
    const unknown = 'cus_0000000000000000000000';
    for (const [tool, args] of [
      ['get_record', { collection: 'customers', id: unknown }],
      ['get_record', { collection: 'bookings', id: 'bkg_0000000000000000000000' }],
      ['get_record', { collection: 'customers', id: '../key' }],
      ['update_customer', { id: unknown, first_name: 'Nobody' }],
      ['delete_customer', { id: unknown }],
    ] as const) {
      const res = await a.call(tool, args);
      expect(res.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(res.text).toMatch(/^API error not_found \(HTTP 404\): /);
      expect(res.text).toMatch(/What to do: .*list_records/);
      expect(res.text).toMatch(/request_id: req_/);
    }
  });

  it('a refusal comes back with its code, its detail and the next step, and writes nothing', async () => {
    const key = await makeKey(storage, { workspaceId, mode: 'live', access: 'read_write' });
    const a = await agent(key.secret);
    const first = await a.call('create_customer', { first_name: 'Taken', email: 'taken.once@example.com' });
    expect(first.isError).toBe(false);

    const taken = await a.call('create_customer', { first_name: 'Other', email: 'taken.once@example.com' });
    expect(taken.text).toMatch(/^API error conflict \(HTTP 409\): /);
    expect(taken.text).toMatch(/What to do: .*email filter/);
    const consent = await a.call('create_customer', { first_name: 'Keen', marketing_consent: true });
    expect(consent.text).toMatch(/^API error forbidden \(HTTP 403\): /);
    expect(consent.text).toMatch(/tell a person/);
    const bad = await a.call('create_customer', { first_name: 'Future', date_of_birth: '2999-01-01' });
    expect(bad.text).toMatch(/^API error invalid_request \(HTTP 400\): .*date_of_birth/s);
    expect(bad.text).toMatch(/What to do: Fix the arguments/);
    // The tool's own schema refuses a wrong type before any request.
    const wrongType = await a.call('create_customer', { first_name: 42 });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toMatch(/first_name/);

    const rows = await storage.db
      .selectFrom('customers')
      .select('first_name')
      .where('workspace_id', '=', workspaceId)
      .where('first_name', 'in', ['Other', 'Keen', 'Future'])
      .execute();
    expect(rows).toEqual([]);
  });

  it("a masked key's contacts stay masked", async () => {
    const writer = await agent((await makeKey(storage, { workspaceId, mode: 'live', access: 'read_write' })).secret);
    const made = await writer.call('create_customer', {
      first_name: 'Mae',
      email: 'mae.masked@example.com',
      phone: '+61412345678',
    });
    expect(made.isError).toBe(false);
    const masked = await makeKey(storage, { workspaceId, mode: 'live', access: 'read', contactsMasked: true });
    const reader = await agent(masked.secret);
    const page = await reader.call('list_records', { collection: 'customers', email: 'mae.masked@example.com' });
    expect(page.json().data).toMatchObject([{ id: made.json().id, email: 'm***@example.com', phone: '+*********78' }]);
    expect(page.text).not.toContain('mae.masked');
    const one = await reader.call('get_record', { collection: 'customers', id: made.json().id });
    expect(one.text).not.toContain('412345678');
  });
});
