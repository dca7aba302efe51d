import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { countRows, createCustomer, get, makeVenue, patch, roomy } from '../helpers/writes.ts';

describe.each(ENGINES)('PATCH /customers/{id} on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    await makeVenue(t, 'AU');
  });
  afterAll(async () => t?.close());

  const logRows = async (id: string) =>
    t.storage.db.selectFrom('change_log').selectAll().where('object_id', '=', id).orderBy('customer_version').execute();

  it('changes only the fields sent, null clears, and the version moves on', async () => {
    const c = await createCustomer(t, t.keys.test, {
      last_name: 'Lovelace',
      company: 'Engines',
      address: { line1: '1 A St', suburb: 'Ultimo' },
    });
    const res = await patch(t, t.keys.test, c.id, { company: null, nickname: 'Ada', address: { suburb: 'Pyrmont' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      nickname: 'Ada',
      company: null,
      address: { line1: '1 A St', suburb: 'Pyrmont' },
      version: '2',
    });
    expect(res.headers.etag).toBe('"2"');
    const rows = await logRows(c.id);
    expect(rows.map((r) => r.action)).toEqual(['customer.create', 'customer.update']);
    expect(JSON.parse(rows[1]!.before!)).toEqual({ company: 'Engines', nickname: null, address_suburb: 'Ultimo' });
    expect(JSON.parse(rows[1]!.after!)).toEqual({ company: null, nickname: 'Ada', address_suburb: 'Pyrmont' });
  });

  it('a PATCH that changes nothing keeps the version and logs nothing', async () => {
    const c = await createCustomer(t, t.keys.test, { last_name: 'Same' });
    const res = await patch(t, t.keys.test, c.id, { last_name: ' Same ', first_name: 'Ada' });
    expect(res.statusCode).toBe(200);
    expect(res.json().version).toBe('1');
    expect(await logRows(c.id)).toHaveLength(1);
    expect((await patch(t, t.keys.test, c.id, {})).json().version).toBe('1');
  });

  it('first_name cannot be emptied or cleared', async () => {
    const c = await createCustomer(t, t.keys.test);
    expect((await patch(t, t.keys.test, c.id, { first_name: '' })).statusCode).toBe(400);
    expect((await patch(t, t.keys.test, c.id, { first_name: '  ' })).statusCode).toBe(400);
    expect((await patch(t, t.keys.test, c.id, { first_name: null })).statusCode).toBe(400);
    expect((await get(t, t.keys.test, c.id)).json().first_name).toBe('Ada');
  });

  it('an empty email or phone can be filled; the same value in another form is no change', async () => {
    const c = await createCustomer(t, t.keys.test);
    const filled = await patch(t, t.keys.test, c.id, { email: 'Fill@Example.com', phone: '0412 345 678' });
    expect(filled.json()).toMatchObject({ email: 'fill@example.com', phone: '+61412345678', version: '2' });
    const same = await patch(t, t.keys.test, c.id, { email: 'FILL@example.COM', phone: '+61 412-345-678' });
    expect(same.statusCode).toBe(200);
    expect(same.json().version).toBe('2');
  });

  it.each([
    ['a different email', { email: 'other@example.com' }],
    ['a null email', { email: null }],
    ['an empty email', { email: '' }],
    ['a different phone', { phone: '0499 999 999' }],
    ['a null phone', { phone: null }],
  ])('answers 409 for %s once one is set, and writes nothing', async (_what, body) => {
    const c = await createCustomer(t, t.keys.test, {
      email: `set-${Math.random()}@example.com`,
      phone: '0412 000 111',
    });
    const res = await patch(t, t.keys.test, c.id, { ...body, last_name: 'Never' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('conflict');
    const after = (await get(t, t.keys.test, c.id)).json();
    expect(after).toMatchObject({ email: c.email, phone: c.phone, last_name: null, version: '1' });
  });

  it('filling an email another customer has is a 409', async () => {
    await createCustomer(t, t.keys.test, { email: 'owner@example.com' });
    const c = await createCustomer(t, t.keys.test);
    const res = await patch(t, t.keys.test, c.id, { email: 'OWNER@example.com' });
    expect(res.statusCode).toBe(409);
    expect((await get(t, t.keys.test, c.id)).json().email).toBeNull();
  });

  it('If-Match with the current ETag writes; a stale one answers 412 and writes nothing', async () => {
    const c = await createCustomer(t, t.keys.test);
    const read = await get(t, t.keys.test, c.id);
    const ok = await patch(t, t.keys.test, c.id, { nickname: 'one' }, { 'if-match': read.headers.etag as string });
    expect(ok.statusCode).toBe(200);
    const logged = await countRows(t, 'change_log');
    const stale = await patch(t, t.keys.test, c.id, { nickname: 'two' }, { 'if-match': read.headers.etag as string });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().code).toBe('precondition_failed');
    expect((await get(t, t.keys.test, c.id)).json()).toMatchObject({ nickname: 'one', version: '2' });
    expect(await countRows(t, 'change_log')).toBe(logged);
    expect((await patch(t, t.keys.test, c.id, { nickname: 'four' }, { 'if-match': '*' })).statusCode).toBe(200);
    expect((await patch(t, t.keys.test, c.id, { nickname: 'five' }, { 'if-match': '"1", "3"' })).statusCode).toBe(200);
  });

  it('a weak If-Match never matches (RFC 9110 compares strongly): 412 and nothing written, not a 400', async () => {
    const c = await createCustomer(t, t.keys.test);
    for (const value of ['W/"1"', 'W/"1", W/"7"', '"7", W/"1"']) {
      const res = await patch(t, t.keys.test, c.id, { nickname: 'weak' }, { 'if-match': value });
      expect(res.statusCode, value).toBe(412);
      expect(res.json().code).toBe('precondition_failed');
    }
    expect((await get(t, t.keys.test, c.id)).json()).toMatchObject({ nickname: null, version: '1' });
    expect((await patch(t, t.keys.test, c.id, { nickname: 'strong' }, { 'if-match': 'W/"1", "1"' })).statusCode).toBe(
      200,
    );
  });

  it.each([['3'], ['"abc"'], ['"1'], ['']])('a malformed If-Match (%s) is a 400', async (value) => {
    const c = await createCustomer(t, t.keys.test);
    const res = await patch(t, t.keys.test, c.id, { nickname: 'x' }, { 'if-match': value });
    expect(res.statusCode).toBe(400);
    expect((await get(t, t.keys.test, c.id)).json().nickname).toBeNull();
  });

  it('refuses unknown fields, marketing consent, and ids it cannot see', async () => {
    const c = await createCustomer(t, t.keys.test);
    expect((await patch(t, t.keys.test, c.id, { tags: [] })).statusCode).toBe(400);
    expect((await patch(t, t.keys.test, c.id, { address: { city: 'x' } })).statusCode).toBe(400);
    expect((await patch(t, t.keys.test, c.id, { membership: { member: true } })).statusCode).toBe(400);
    expect((await patch(t, t.keys.test, c.id, { marketing_consent: true })).statusCode).toBe(403);
    // Another mode, another object's prefix, a malformed id, an unknown one: 404.
    expect((await patch(t, t.keys.live, c.id, { nickname: 'x' })).statusCode).toBe(404);
    expect((await patch(t, t.keys.test, c.id.replace('cus_', 'bkg_'), { nickname: 'x' })).statusCode).toBe(404);
    expect((await patch(t, t.keys.test, 'cus_short', { nickname: 'x' })).statusCode).toBe(404);
    expect((await patch(t, t.keys.test, 'cus_0000000000000000000000', { nickname: 'x' })).statusCode).toBe(404);
    expect((await patch(t, t.keys.liveRead, c.id, { nickname: 'x' })).statusCode).toBe(403);
  });

  it('a customer of another workspace is a 404', async () => {
    const other = await createWorkspace(t.storage, t.clock.fn, { name: 'Other' });
    const theirKey = await t.makeKey({ workspaceId: other.id, name: 'theirs' });
    const theirs = await createCustomer(t, theirKey);
    expect((await patch(t, t.keys.test, theirs.id, { nickname: 'x' })).statusCode).toBe(404);
    expect((await t.call(t.keys.test, { method: 'DELETE', url: `/customers/${theirs.id}` })).statusCode).toBe(404);
  });

  it('a date of birth makes adult follow it; adult alone is stored', async () => {
    const c = await createCustomer(t, t.keys.test, { adult: false });
    expect(c.adult).toBe(false);
    const dob = await patch(t, t.keys.test, c.id, { date_of_birth: '1980-01-01' });
    expect(dob.json().adult).toBe(true);
    const cleared = await patch(t, t.keys.test, c.id, { date_of_birth: null });
    expect(cleared.json().adult).toBe(false);
  });
});
