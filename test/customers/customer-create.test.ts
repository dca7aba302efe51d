import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { countRows, createCustomer, makeVenue, post, roomy } from '../helpers/writes.ts';

describe.each(ENGINES)('POST /customers on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    await makeVenue(t, 'Australia');
  });
  afterAll(async () => t?.close());

  const create = (body: unknown, headers: Record<string, string> = {}) =>
    post(t, t.keys.test, '/customers', body, headers);

  it('creates a customer with every field and answers 201 with its version as ETag', async () => {
    const res = await create({
      first_name: '  Grace ',
      last_name: 'Hopper',
      nickname: null,
      email: ' Grace.Hopper@Example.COM ',
      phone: '0412 345 678',
      date_of_birth: '1990-12-09',
      company: 'Navy',
      gender: 'female',
      adult: false,
      marketing_consent: false,
      how_heard_about_us: 'a friend',
      address: { line1: '1 Main St', line2: null, suburb: 'Sydney', state: 'NSW', postcode: '2000', country: 'AU' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      object: 'customer',
      first_name: 'Grace',
      last_name: 'Hopper',
      email: 'grace.hopper@example.com',
      phone: '+61412345678',
      date_of_birth: '1990-12-09',
      adult: true, // computed from the date of birth, not the stored false (DECISIONS "Customers")
      marketing_consent: false,
      membership: { member: false, tier: null },
      tags: [],
      lists: [],
      livemode: false,
      version: '1',
      address: { line1: '1 Main St', line2: null, suburb: 'Sydney', state: 'NSW', postcode: '2000', country: 'AU' },
    });
    expect(body).not.toHaveProperty('gender');
    expect(body.id).toMatch(/^cus_[0-9A-Za-z]{22}$/);
    expect(res.headers.etag).toBe('"1"');
    const row = await t.storage.db
      .selectFrom('customers')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ gender: 'female', how_heard_about_us: 'a friend', created_by_key_id: t.keys.test.id });
    const read = await t.call(t.keys.test, { method: 'GET', url: '/customers?email=GRACE.HOPPER@example.com' });
    expect(read.json().data.map((c: { id: string }) => c.id)).toEqual([body.id]);
  });

  it('writes a change-log row in the same request: key, request id, action and fields', async () => {
    const res = await create({ first_name: 'Logged', email: 'logged@example.com' });
    const id = res.json().id;
    const rows = await t.storage.db.selectFrom('change_log').selectAll().where('object_id', '=', id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'customer.create',
      object: 'customer',
      key_id: t.keys.test.id,
      actor_kind: 'key',
      request_id: res.headers['request-id'],
      customer_version: 1,
      before: null,
    });
    expect(JSON.parse(rows[0]!.after!)).toMatchObject({ first_name: 'Logged', email: 'logged@example.com' });
  });

  it('refuses an email another customer has, in any case, with 409 and writes nothing', async () => {
    await createCustomer(t, t.keys.test, { email: 'taken@example.com' });
    const before = await countRows(t, 'customers');
    const res = await create({ first_name: 'Second', email: 'TAKEN@example.com' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'conflict', status: 409 });
    expect(res.json().detail).not.toContain('taken@example.com');
    expect(await countRows(t, 'customers')).toBe(before);
  });

  it("keeps emails unique per mode: a test customer may share a live customer's email", async () => {
    await createCustomer(t, t.keys.live, { email: 'both@example.com' });
    const res = await create({ first_name: 'Test twin', email: 'both@example.com' });
    expect(res.statusCode).toBe(201);
    expect(res.json().livemode).toBe(false);
  });

  it('frees the email of a deleted customer', async () => {
    const first = await createCustomer(t, t.keys.test, { email: 'reuse@example.com' });
    expect((await t.call(t.keys.test, { method: 'DELETE', url: `/customers/${first.id}` })).statusCode).toBe(200);
    expect((await create({ first_name: 'Again', email: 'reuse@example.com' })).statusCode).toBe(201);
  });

  it("parses phones with the first venue's country and refuses impossible ones", async () => {
    expect((await create({ first_name: 'P', phone: '(02) 9876 5432' })).json().phone).toBe('+61298765432');
    expect((await create({ first_name: 'P', phone: '+1 212-555-0100' })).json().phone).toBe('+12125550100');
    const bad = await create({ first_name: 'P', phone: '123' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'phone' }] });
    expect((await create({ first_name: 'P', phone: 'call me maybe' })).statusCode).toBe(400);
  });

  it('answers 403 for marketing_consent true and writes nothing; false is accepted', async () => {
    const before = await countRows(t, 'customers');
    const res = await create({ first_name: 'M', marketing_consent: true });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('forbidden');
    expect(await countRows(t, 'customers')).toBe(before);
    expect((await create({ first_name: 'M', marketing_consent: false })).statusCode).toBe(201);
  });

  it.each([
    ['an unknown field', { first_name: 'A', favourite: 'x' }, 'favourite'],
    ['an unknown address member', { first_name: 'A', address: { city: 'x' } }, 'address.city'],
    ['a null address', { first_name: 'A', address: null }, 'address'],
    ['no first_name', { last_name: 'B' }, 'first_name'],
    ['a blank first_name', { first_name: '   ' }, 'first_name'],
    ['a first_name over 100 characters', { first_name: 'x'.repeat(101) }, 'first_name'],
    ['a boolean sent as a string', { first_name: 'A', adult: 'true' }, 'adult'],
    ['a null adult', { first_name: 'A', adult: null }, 'adult'],
    ['an unknown gender', { first_name: 'A', gender: 'robot' }, 'gender'],
    ['a malformed email', { first_name: 'A', email: 'not-an-email' }, 'email'],
    ['a date that does not exist', { first_name: 'A', date_of_birth: '2001-02-29' }, 'date_of_birth'],
    ['a date of birth in the future', { first_name: 'A', date_of_birth: '2999-01-01' }, 'date_of_birth'],
    ['a date in another format', { first_name: 'A', date_of_birth: '01/02/2000' }, 'date_of_birth'],
  ])('refuses %s with 400 naming the field, writing nothing', async (_what, body, field) => {
    const before = await countRows(t, 'customers');
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().code).toBe('invalid_request');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await countRows(t, 'customers')).toBe(before);
  });

  it('stores blank optional text as null and trims the rest', async () => {
    const body = (await create({ first_name: 'T', last_name: '  ', company: ' Acme ' })).json();
    expect(body).toMatchObject({ last_name: null, company: 'Acme' });
  });

  it('answers 415 for a body that is not JSON, 413 over 64 KiB, 400 for broken JSON', async () => {
    const text = await t.call(t.keys.test, {
      method: 'POST',
      url: '/customers',
      payload: 'first_name=A',
      headers: { 'content-type': 'text/plain', 'idempotency-key': 'k-415' },
    });
    expect(text.statusCode).toBe(415);
    const big = await create({ first_name: 'A', company: 'x'.repeat(70_000) });
    expect(big.statusCode).toBe(413);
    const broken = await t.call(t.keys.test, {
      method: 'POST',
      url: '/customers',
      payload: '{"first_name":',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-400' },
    });
    expect(broken.statusCode).toBe(400);
  });

  it('refuses read-only keys and keys without customers.create with 403', async () => {
    const read = await post(t, t.keys.liveRead, '/customers', { first_name: 'R' });
    expect(read.statusCode).toBe(403);
    expect(read.json().code).toBe('forbidden');
    const restricted = await t.makeKey({
      name: 'no create',
      restricted: { canRead: ['customers'], canWrite: ['customers.update'] },
    });
    expect((await post(t, restricted, '/customers', { first_name: 'R' })).statusCode).toBe(403);
  });

  it('a contacts-masked key writes the contacts but is answered with them masked', async () => {
    const masked = await t.makeKey({ name: 'masked', contactsMasked: true });
    const res = await post(t, masked, '/customers', {
      first_name: 'Masked',
      email: 'jane@example.com',
      phone: '0412 345 678',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ email: 'j***@example.com', phone: '+*********78' });
    const row = await t.storage.db
      .selectFrom('customers')
      .selectAll()
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ email: 'jane@example.com', phone: '+61412345678' });
    const taken = await post(t, masked, '/customers', { first_name: 'Again', email: 'jane@example.com' });
    expect(taken.statusCode).toBe(409);
    expect(taken.body).not.toContain('jane');
  });

  it('refuses an unknown query parameter with 400', async () => {
    const res = await post(t, t.keys.test, '/customers?expand=tags', { first_name: 'Q' });
    expect(res.statusCode).toBe(400);
  });
});
