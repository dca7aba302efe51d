import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UndoJobWorker } from '../../src/jobs/undo-jobs.ts';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { addOwner, OWNER_EMAIL, OWNER_PASSWORD } from '../helpers/staff.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, get, patch } from '../helpers/writes.ts';
import { ConsoleClient, textOf } from './client.ts';

const AGREED = { agree_terms: 'on', agree_aup: 'on', agree_privacy: 'on' };

/** The keys page, creating a key and a key's page (docs/console.md): through the forms, as a browser posts them. */
describe.each(ENGINES)('console keys on %s', (engine) => {
  let t: TestApp;
  let owner: ConsoleClient;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    await addOwner(t.storage, t.clock.fn, t.workspaceId);
    owner = new ConsoleClient(t.app);
    await owner.signIn(OWNER_EMAIL, OWNER_PASSWORD);
  });
  afterAll(async () => t?.close());

  /** What a server process's undo worker does: run the queued undos to their end. */
  const runUndoJobs = () => new UndoJobWorker({ store: t.storage, clock: t.clock.fn }).drain();

  const keyCount = async () =>
    Number(
      (
        await t.storage.db
          .selectFrom('api_keys')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** Creates a key through the form and follows the redirect to its secret. */
  const createThroughForm = async (fields: Record<string, string | string[]>) => {
    await owner.get('/console/keys/new');
    const res = await owner.post('/console/keys', { ...AGREED, ...fields });
    expect(res.statusCode, res.body).toBe(303);
    const shown = await owner.get(res.headers.location as string);
    const secret = /id="secret" value="([^"]+)"/.exec(shown.body)?.[1];
    const id = /\/console\/keys\/(key_\w+)\/created/.exec(res.headers.location as string)![1]!;
    return { id, secret, shown, created: res, location: res.headers.location as string };
  };

  it('creates a live read-write key: the secret once, in a read-only "Secret" field, then never again', async () => {
    const { id, secret, shown, created, location } = await createThroughForm({
      name: 'Shop sync',
      mode: 'live',
      access: 'read_write',
    });
    expect(secret).toMatch(/^vw_live_/);
    // The cookie that carries it to that page lives a minute at most, for that page only.
    const carrier = (created.cookies as { name: string; value: string; maxAge?: number; path?: string }[]).find(
      (c) => c.name === 'venue_console_new_secret',
    );
    expect(carrier).toMatchObject({ value: secret, maxAge: 60, path: location, httpOnly: true, sameSite: 'Strict' });
    expect(shown.body).toMatch(/<label for="secret">Secret<\/label>/);
    expect(shown.body).toMatch(/<input type="text" id="secret" value="[^"]+" readonly/);
    expect(shown.body).toMatch(/>Copy<\/button>/);
    // Reloading the page shows no secret, and no secret is anywhere in the database.
    const reload = await owner.get(location);
    expect(reload.body).not.toContain(secret!);
    expect(textOf(reload.body)).toMatch(/shown only once/);
    const row = await t.storage.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret!);
    expect(row).toMatchObject({
      created_by: 'owner@example.com',
      agreed_by: 'owner@example.com',
      agreed_at: t.clock.now,
    });
    const api = await t.call({ id, secret: secret! }, { method: 'GET', url: '/key' });
    expect(api.statusCode).toBe(200);
    expect(api.json()).toMatchObject({ id, mode: 'live', access: 'read_write', kind: 'standard' });
    const list = await owner.get('/console/keys');
    expect(textOf(list.body)).toMatch(/Shop sync Live Read and write Standard owner@example.com/);
    expect(textOf(list.body)).toMatch(/4 of 25 keys in use/);
  });

  it('refuses the form without all three agreements, on the server, and creates nothing', async () => {
    const before = await keyCount();
    await owner.get('/console/keys/new');
    for (const missing of ['agree_terms', 'agree_aup', 'agree_privacy']) {
      const fields: Record<string, string> = { ...AGREED, name: 'No terms', mode: 'test', access: 'read' };
      delete fields[missing];
      const res = await owner.post('/console/keys', fields);
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(new RegExp(`id="${missing}-error"`));
      expect(res.body).toContain('value="No terms"'); // what was typed stays
    }
    expect(await keyCount()).toBe(before);
  });

  it('refuses a create without the CSRF token and creates nothing', async () => {
    const before = await keyCount();
    await owner.get('/console/keys/new');
    const res = await owner.post('/console/keys', { ...AGREED, name: 'Forged', mode: 'test', access: 'read' }, null);
    expect(res.statusCode).toBe(403);
    expect(await keyCount()).toBe(before);
  });

  it('shows the service rules next to their fields, with the same rules as the API and CLI', async () => {
    const before = await keyCount();
    await owner.get('/console/keys/new');
    const cases: [Record<string, string | string[]>, string][] = [
      [{ name: '  ', mode: 'test', access: 'read' }, 'name'],
      [{ name: 'x', mode: 'staging', access: 'read' }, 'mode'],
      [{ name: 'x', mode: 'test', access: 'read', restricted: 'on', can_write: 'customers.update' }, 'can_write'],
      [{ name: 'x', mode: 'test', access: 'read_write', restricted: 'on', can_write: 'customers.update' }, 'can_read'],
      [{ name: 'x', mode: 'test', access: 'read', can_read: 'customers' }, 'restricted'],
      [{ name: 'x', mode: 'test', access: 'read', limit_page_size_max: '500' }, 'limits'],
      [{ name: 'x', mode: 'test', access: 'read', limit_requests_per_minute: '1201' }, 'limit_requests_per_minute'],
      [{ name: 'x', mode: 'test', access: 'read', limit_writes_per_day: '-3' }, 'limit_writes_per_day'],
      [{ name: 'x', mode: 'test', access: 'read', expires_at: '2020-01-01T00:00' }, 'expires_at'],
      [{ name: 'x', mode: 'test', access: 'read', expires_at: '2027-02-31T00:00' }, 'expires_at'],
      [{ name: 'x'.repeat(101), mode: 'test', access: 'read' }, 'name'],
    ];
    for (const [fields, field] of cases) {
      const res = await owner.post('/console/keys', { ...AGREED, ...fields });
      expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
      expect(res.body).toMatch(new RegExp(`id="${field}-error"`));
    }
    expect(await keyCount()).toBe(before);
  });

  it('makes a restricted, masked, expiring key with its own limits', async () => {
    const { id } = await createThroughForm({
      name: 'Restricted',
      mode: 'test',
      access: 'read_write',
      restricted: 'on',
      can_read: ['customers', 'venues'],
      can_write: ['customers.update'],
      contacts_masked: 'on',
      expires_at: '2099-01-31T09:30',
      limit_requests_per_minute: '50',
    });
    const page = textOf((await owner.get(`/console/keys/${id}`)).body);
    expect(page).toMatch(/Kind Restricted/);
    expect(page).toMatch(/Can read customers, venues/);
    expect(page).toMatch(/Can write customers.update/);
    expect(page).toMatch(/Contacts masked Yes/);
    expect(page).toMatch(/Expires 2099-01-31 09:30:00 UTC/);
    expect(page).toMatch(/Requests per minute 50/);
  });

  const apiStatus = async (key: TestKey) => {
    await t.keysCache.refresh(); // what each process's poll does every KEY_REFRESH_MS
    const res = await t.call(key, { method: 'GET', url: '/key' });
    return { status: res.statusCode, code: res.statusCode >= 400 ? res.json().code : undefined };
  };

  it('pause, resume and revoke each go through a confirmation and take effect in the API', async () => {
    const key = await t.makeKey({ name: 'Lifecycle', mode: 'live', access: 'read' });
    expect(await apiStatus(key)).toEqual({ status: 200, code: undefined });
    const confirm = await owner.get(`/console/keys/${key.id}/pause`);
    expect(confirm.body).toMatch(/>Confirm<\/button>/);
    t.clock.now += 1000;
    const paused = await owner.post(`/console/keys/${key.id}/pause`, { reason: 'Looks <odd>' });
    expect(paused.statusCode).toBe(303);
    expect(await apiStatus(key)).toEqual({ status: 403, code: 'key_paused' });
    const page = await owner.get(paused.headers.location as string);
    expect(page.body).toContain('Looks &lt;odd&gt;');
    expect(textOf(page.body)).toMatch(/Paused at \d{4}-\d\d-\d\d/);
    expect(page.body).toMatch(/>Resume<\/button>/);

    await owner.get(`/console/keys/${key.id}/resume`);
    t.clock.now += 1000;
    expect((await owner.post(`/console/keys/${key.id}/resume`, {})).statusCode).toBe(303);
    expect(await apiStatus(key)).toEqual({ status: 200, code: undefined });

    await owner.get(`/console/keys/${key.id}/revoke`);
    t.clock.now += 1000;
    expect((await owner.post(`/console/keys/${key.id}/revoke`, {})).statusCode).toBe(303);
    expect((await apiStatus(key)).status).toBe(401);
    // A revoked key cannot be paused: said on the page, with a 409, and nothing changes.
    await owner.get(`/console/keys/${key.id}/pause`);
    const refused = await owner.post(`/console/keys/${key.id}/pause`, {});
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toMatch(/a revoked key cannot be paused/);
  });

  it('a key of another workspace, or a malformed id, is a 404 page, and its moves change nothing', async () => {
    const otherWs = await t.storage.db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
    expect(otherWs.id).toBe(t.workspaceId);
    const foreign = newId('key');
    expect((await owner.get(`/console/keys/${foreign}`)).statusCode).toBe(404);
    expect((await owner.get('/console/keys/not-a-key')).statusCode).toBe(404);
    await owner.get('/console/keys');
    expect((await owner.post(`/console/keys/${foreign}/revoke`, {})).statusCode).toBe(404);
  });

  it('the key page shows the change log newest first; undo previews, then reverts and is logged', async () => {
    const key = await t.makeKey({ name: 'Writer', mode: 'live', access: 'read_write' });
    const customer = await createCustomer(t, key, { first_name: 'Grace', last_name: 'Hopper' });
    t.clock.now += 1000;
    const changed = await patch(t, key, customer.id, { last_name: 'Changed' }, { 'if-match': '*' });
    expect(changed.statusCode).toBe(200);
    const page = textOf((await owner.get(`/console/keys/${key.id}`)).body);
    expect(page).toMatch(/2 change\(s\), newest first/);
    expect(page.indexOf('customer.update')).toBeLessThan(page.indexOf('customer.create'));
    expect(page).toContain(customer.id);
    expect(page).toMatch(/last_name: "Hopper".*last_name: "Changed"/);

    const preview = await owner.get(`/console/keys/${key.id}/undo`);
    expect(textOf(preview.body)).toMatch(/Would revert \(2\)/);
    expect(preview.body).toContain(customer.id);
    expect(preview.body).toMatch(/>Confirm undo<\/button>/);
    // The preview wrote nothing.
    expect((await get(t, key, customer.id)).json().last_name).toBe('Changed');

    t.clock.now += 1000;
    const undone = await owner.post(`/console/keys/${key.id}/undo`, {});
    // Answered at once: the undo is a job, its progress on the key's page.
    expect(undone.statusCode).toBe(303);
    expect(undone.headers.location).toBe(`/console/keys/${key.id}#undo`);
    expect(textOf((await owner.get(`/console/keys/${key.id}`)).body)).toMatch(
      /Undo queued: waiting for a server process to take it up\. Asked for by owner@example\.com/,
    );
    await runUndoJobs();
    const result = textOf((await owner.get(`/console/keys/${key.id}`)).body);
    expect(result).toMatch(/Undo finished at .*: 2 of 2 change\(s\) looked at: 2 reverted, 0 left as they were\./);
    expect(result).toMatch(/Skipped \(0\) Nothing\./);
    expect((await get(t, key, customer.id)).statusCode).toBe(404); // the key created it: undone, it is deleted
    const after = textOf((await owner.get(`/console/keys/${key.id}`)).body);
    expect(after).toMatch(/4 change\(s\)/);
    expect(after).toMatch(/\(undo\)/);
    expect(after).toMatch(/staff stf_/);
  });

  it('the undo preview shows each field three ways, and links the customer as it is now', async () => {
    const key = await t.makeKey({ name: 'Renamer', mode: 'live', access: 'read_write' });
    const other = await t.makeKey({ name: 'Source', mode: 'live', access: 'read_write' });
    const customer = await createCustomer(t, other, { first_name: 'Alan', last_name: 'Turing' });
    t.clock.now += 1000;
    await patch(t, key, customer.id, { last_name: 'Turing-Key', company: 'Bletchley' }, { 'if-match': '*' });
    const preview = await owner.get(`/console/keys/${key.id}/undo`);
    const text = textOf(preview.body);
    // Field, what the key wrote, what is there now, what the undo would put back.
    expect(text).toMatch(/customer\.update last_name "Turing-Key" "Turing-Key" "Turing"/);
    expect(text).toContain('company "Bletchley" "Bletchley" null');
    expect(preview.body).toContain(`href="/console/keys/${key.id}/customers/${customer.id}"`);

    const now = textOf((await owner.get(`/console/keys/${key.id}/customers/${customer.id}`)).body);
    expect(now).toContain('last_name "Turing-Key"');
    expect(now).toContain('company "Bletchley"');
    const missing = await owner.get(`/console/keys/${key.id}/customers/cus_doesnotexist`);
    expect(missing.statusCode).toBe(200);
    expect(textOf(missing.body)).toContain('No live customer cus_doesnotexist exists now');
  });

  it('undo skips what someone else changed later, naming the customer and why', async () => {
    const key = await t.makeKey({ name: 'Editor', mode: 'live', access: 'read_write' });
    const other = await t.makeKey({ name: 'Other', mode: 'live', access: 'read_write' });
    const customer = await createCustomer(t, other, { first_name: 'Ada', last_name: 'Byron' });
    t.clock.now += 1000;
    await patch(t, key, customer.id, { last_name: 'Lovelace', company: 'Engines' }, { 'if-match': '*' });
    t.clock.now += 1000;
    await patch(t, other, customer.id, { last_name: 'King' }, { 'if-match': '*' });
    const preview = textOf((await owner.get(`/console/keys/${key.id}/undo`)).body);
    expect(preview).toMatch(/Skipped \(1\)/);
    expect(preview).toMatch(
      new RegExp(`${customer.id} chg_\\w+ customer.update last_name changed later by someone else`),
    );
    await owner.post(`/console/keys/${key.id}/undo`, {});
    await runUndoJobs();
    expect((await get(t, key, customer.id)).json()).toMatchObject({ last_name: 'King', company: null });
    const result = textOf((await owner.get(`/console/keys/${key.id}`)).body);
    expect(result).toMatch(/1 of 1 change\(s\) looked at: 1 reverted, 0 left as they were/);
    expect(result).toMatch(
      new RegExp(`Skipped \\(1\\) .*${customer.id} chg_\\w+ customer.update last_name changed later by someone else`),
    );
  });

  it('the undo preview pages the key’s changes newest first, each page planned from the customers’ own logs', async () => {
    const key = await t.makeKey({ name: 'Bulk', mode: 'live', access: 'read_write' });
    const made: string[] = [];
    for (let i = 0; i < 25; i++) {
      t.clock.now += 1;
      made.push((await createCustomer(t, key, { first_name: `P${i}`, last_name: 'Page' })).id);
    }
    for (const id of made) {
      t.clock.now += 1;
      expect((await patch(t, key, id, { company: `C-${id.slice(-4)}` }, { 'if-match': '*' })).statusCode).toBe(200);
    }
    const first = textOf((await owner.get(`/console/keys/${key.id}/undo`)).body);
    expect(first).toContain('50 change(s) not yet undone. Page 1 of 3: its 20 change(s) would revert 20 and skip 0');
    // The newest change first: the last customer's update; the first customers are on later pages.
    expect(first.indexOf(made[24]!)).toBeLessThan(first.indexOf(made[23]!));
    expect(first).not.toContain(made[0]);
    expect(first).toMatch(/Older changes/);
    const last = textOf((await owner.get(`/console/keys/${key.id}/undo?page=3`)).body);
    expect(last).toContain('Page 3 of 3: its 10 change(s) would revert 10');
    expect(last).toContain(made[0]);
    expect(last).toMatch(/customer\.create deleted_at null null \d+/);
    expect(last).not.toMatch(/customer\.update/);
    expect(last).toMatch(/Newer changes/);
    // Past the last page shows the last page.
    expect(textOf((await owner.get(`/console/keys/${key.id}/undo?page=99`)).body)).toContain('Page 3 of 3');
  });

  it('an undo runs as a job: the key’s page shows its progress mid-way, and a second undo is refused meanwhile', async () => {
    const key = await t.makeKey({ name: 'Batched', mode: 'live', access: 'read_write' });
    for (let i = 0; i < 3; i++) {
      t.clock.now += 1;
      await createCustomer(t, key, { first_name: `B${i}`, last_name: 'Batch' });
    }
    await owner.get(`/console/keys/${key.id}/undo`);
    expect((await owner.post(`/console/keys/${key.id}/undo`, {})).statusCode).toBe(303);
    const again = await owner.post(`/console/keys/${key.id}/undo`, {});
    expect(again.statusCode).toBe(409);
    expect(textOf(again.body)).toContain("An undo of this key's changes is already running");
    const preview = await owner.get(`/console/keys/${key.id}/undo`);
    expect(textOf(preview.body)).toContain("An undo of this key's changes is running. See its progress");
    expect(preview.body).not.toContain('>Confirm undo</button>');

    const seen: string[] = [];
    await new UndoJobWorker({
      store: t.storage,
      clock: t.clock.fn,
      batch: 1,
      afterBatch: async () => {
        seen.push(textOf((await owner.get(`/console/keys/${key.id}`)).body));
      },
    }).drain();
    expect(seen).toHaveLength(3);
    expect(seen[0]).toMatch(/Undo running: 1 of 3 change\(s\) looked at: 1 reverted, 0 left as they were\./);
    expect(seen[0]).toContain('Refresh progress');
    expect(seen[1]).toMatch(/Undo running: 2 of 3/);
    const done = textOf((await owner.get(`/console/keys/${key.id}`)).body);
    expect(done).toMatch(/Undo finished at .*: 3 of 3 change\(s\) looked at: 3 reverted/);
    expect(done).not.toContain('Refresh progress');
    // Once it has ended, the next undo may start (and finds nothing left).
    t.clock.now += 1000;
    await owner.get(`/console/keys/${key.id}/undo`);
    expect((await owner.post(`/console/keys/${key.id}/undo`, {})).statusCode).toBe(303);
    await runUndoJobs();
    expect(textOf((await owner.get(`/console/keys/${key.id}`)).body)).toMatch(/0 of 0 change\(s\) looked at/);
  });

  it("the limits show today's use as the API counts it", async () => {
    const key = await t.makeKey({ name: 'Counted', mode: 'test', access: 'read', limits: { requests_per_day: 900 } });
    for (let i = 0; i < 3; i++) await t.call(key, { method: 'GET', url: '/key' });
    const page = textOf((await owner.get(`/console/keys/${key.id}`)).body);
    expect(page).toMatch(/Requests per day 900 3 /);
    expect(page).toMatch(/Last used Never/);
    // A test key's use is stamped too, when the activity tracker writes its batch.
    await t.app.activity.flush();
    const used = new Date(t.clock.now).toISOString().replace('T', ' ').slice(0, 19);
    expect(textOf((await owner.get(`/console/keys/${key.id}`)).body)).toContain(`Last used ${used} UTC`);
  });

  it('the keys page tells active, paused with its reason, revoked and expired keys apart', async () => {
    const expiring = await t.makeKey({ name: 'Short lived', expiresAt: t.clock.now + 60_000 });
    const paused = await t.makeKey({ name: 'Held' });
    await owner.get(`/console/keys/${paused.id}/pause`);
    await owner.post(`/console/keys/${paused.id}/pause`, { reason: 'Too many reads' });
    t.clock.now += 61_000;
    const page = textOf((await owner.get('/console/keys')).body);
    expect(page).toMatch(/Short lived Test Read and write Standard .*? Expired/);
    expect(page).toMatch(/Held Test Read and write Standard .*? Paused : Too many reads/);
    expect(page).toMatch(/Lifecycle .*? Revoked/);
    expect((await t.call(expiring, { method: 'GET', url: '/key' })).statusCode).toBe(401);
  });

  it('the notifications page shows the outbox of this workspace only, escaped', async () => {
    const row = (workspace_id: string, subject: string) => ({
      id: newId('email'),
      workspace_id,
      recipient: 'owner@example.com',
      subject,
      body: 'Key paused <because>',
      error: null,
      created_at: t.clock.now,
    });
    await t.storage.db
      .insertInto('outbox')
      .values([row(t.workspaceId, 'Key "Shop" paused'), row('wsp_0000000000000000000000', 'Not ours')])
      .execute();
    const page = await owner.get('/console/notifications');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Key "Shop" paused');
    expect(page.body).toContain('Key paused &lt;because&gt;');
    expect(page.body).not.toContain('Not ours');
  });
});
