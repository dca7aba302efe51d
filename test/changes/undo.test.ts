import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import {
  createCustomer,
  del,
  get,
  makeList,
  makeTag,
  patch,
  post,
  roomy,
  roomyKey,
  staffActor,
  writesAs,
  type Writer,
} from '../helpers/writes.ts';

describe.each(ENGINES)("undo of a key's changes on %s", (engine) => {
  let t: TestApp;
  let staff: Writer;
  let tag: string;
  let list: string;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    staff = writesAs(t.app.writes, await staffActor(t, false));
    tag = await makeTag(t);
    list = await makeList(t);
  });
  afterAll(async () => t?.close());

  const operator = { kind: 'operator', id: 'cli:test' } as const;
  const undo = (key: TestKey, dryRun = false) =>
    undoKeyChanges(t.storage, key.id, { by: operator, clock: t.clock.fn, dryRun });
  const read = async (id: string) => (await get(t, t.keys.test, id)).json();

  it("puts back every field the key changed that nobody touched since, and records the undo as the operator's", async () => {
    const k = await roomyKey(t);
    const c = (await staff.create({ first_name: 'Ada', last_name: 'Byron', company: 'Engines' })).record;
    await patch(t, k, c.id, { last_name: 'Lovelace', company: null, nickname: 'Countess' });
    await patch(t, k, c.id, { nickname: 'Ada L' });
    const report = await undo(k);
    expect(report).toEqual({ reverted: 2, skipped: [] });
    expect(await read(c.id)).toMatchObject({ last_name: 'Byron', company: 'Engines', nickname: null, version: '5' });
    const log = await t.storage.db
      .selectFrom('change_log')
      .selectAll()
      .where('object_id', '=', c.id)
      .orderBy('customer_version')
      .execute();
    expect(log.slice(3).map((r) => [r.actor_kind, r.actor_id, r.key_id])).toEqual([
      ['operator', 'cli:test', null],
      ['operator', 'cli:test', null],
    ]);
    expect(log[3]!.reverts).toBe(log[2]!.id);
    expect(await undo(k)).toEqual({ reverted: 0, skipped: [] });
    expect((await read(c.id)).version).toBe('5');
  });

  it('never reverts a field someone else changed after the key; reverts the untouched ones', async () => {
    const k = await roomyKey(t);
    const c = await createCustomer(t, t.keys.test, { last_name: 'Old', company: 'Old Co' });
    await patch(t, k, c.id, { last_name: 'K', company: 'K Co' });
    await staff.update(c.id, { company: 'Staff Co' });
    const report = await undo(k);
    expect(report.reverted).toBe(1);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        customer: c.id,
        field: 'company',
        reason: 'changed_since',
        by: staff.actor.id,
        action: 'customer.update',
      }),
    ]);
    expect(await read(c.id)).toMatchObject({ last_name: 'Old', company: 'Staff Co' });
  });

  it('deletes a customer the key created only if nobody else changed it since', async () => {
    const k = await roomyKey(t);
    const untouched = await createCustomer(t, k, { email: 'mine@example.com' });
    await post(t, k, `/customers/${untouched.id}/tags`, { tag });
    const touched = await createCustomer(t, k);
    await post(t, t.keys.test, `/customers/${touched.id}/lists`, { list });
    const report = await undo(k);
    expect(report.reverted).toBe(2); // the create and the tag of `untouched`
    expect(report.skipped).toEqual([
      expect.objectContaining({ customer: touched.id, action: 'customer.create', reason: 'changed_since' }),
    ]);
    expect((await get(t, t.keys.test, untouched.id)).statusCode).toBe(404);
    expect((await get(t, t.keys.test, touched.id)).statusCode).toBe(200);
  });

  it("restores a customer the key deleted, unless its email is now someone else's", async () => {
    const k = await roomyKey(t);
    const free = await createCustomer(t, t.keys.test, { email: 'free@example.com' });
    await post(t, t.keys.test, `/customers/${free.id}/tags`, { tag });
    const taken = await createCustomer(t, t.keys.test, { email: 'taken-later@example.com' });
    await del(t, k, `/customers/${free.id}`);
    await del(t, k, `/customers/${taken.id}`);
    await createCustomer(t, t.keys.test, { email: 'taken-later@example.com' });
    const report = await undo(k);
    expect(report.reverted).toBe(1);
    expect(report.skipped).toEqual([
      expect.objectContaining({ customer: taken.id, reason: 'email_taken', field: 'email' }),
    ]);
    expect(await read(free.id)).toMatchObject({ email: 'free@example.com', tags: [{ id: tag }] });
    expect((await get(t, t.keys.test, taken.id)).statusCode).toBe(404);
  });

  it('undoes tag and list membership changes, back to what they replaced', async () => {
    const k = await roomyKey(t);
    const c = await createCustomer(t, t.keys.test);
    await post(t, t.keys.test, `/customers/${c.id}/tags`, { tag });
    await post(t, t.keys.test, `/customers/${c.id}/lists`, { list });
    await t.storage.db
      .updateTable('customer_lists')
      .set({ status: 'unsubscribed', unsubscribed_at: 1234 })
      .where('customer_id', '=', c.id)
      .execute();
    const before = await read(c.id);
    await del(t, k, `/customers/${c.id}/tags/${tag}`);
    await post(t, k, `/customers/${c.id}/lists`, { list }); // puts back one who left
    const tag2 = await makeTag(t, 'Second');
    await post(t, k, `/customers/${c.id}/tags`, { tag: tag2 });
    expect(await undo(k)).toEqual({ reverted: 3, skipped: [] });
    const after = await read(c.id);
    expect(after.tags).toEqual(before.tags);
    expect(after.lists).toEqual(before.lists);
  });

  it('a dry run reports exactly what the undo then does, and writes nothing', async () => {
    const k = await roomyKey(t);
    const c = await createCustomer(t, t.keys.test, { company: 'A' });
    await patch(t, k, c.id, { company: 'B', nickname: 'n' });
    await staff.update(c.id, { nickname: 'staff' });
    const created = await createCustomer(t, k);
    const snapshot = async () => ({
      customers: await t.storage.db.selectFrom('customers').selectAll().orderBy('id').execute(),
      log: await t.storage.db.selectFrom('change_log').selectAll().orderBy('id').execute(),
    });
    const before = await snapshot();
    const dry = await undo(k, true);
    expect(await snapshot()).toEqual(before);
    expect(dry.reverted).toBe(2);
    const real = await undo(k);
    expect(real).toEqual(dry);
    expect((await get(t, t.keys.test, created.id)).statusCode).toBe(404);
  });

  it('an unknown key is a not_found', async () => {
    await expect(
      undoKeyChanges(t.storage, 'key_0000000000000000000000', { by: operator, clock: t.clock.fn }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
