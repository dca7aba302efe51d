import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/resources/audit/audit.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { addStaffWithHash, cheapPasswordHash } from '../helpers/staff.ts';
import { ENGINES } from '../helpers/storage.ts';
import { ConsoleClient, textOf } from './client.ts';

/** The staff and audit pages (docs/console.md "Staff", "Audit log"), through the forms as a browser posts them. */
describe.each(ENGINES)('console staff and audit log on %s', { timeout: 120_000 }, (engine) => {
  let t: TestApp;
  let owner: ConsoleClient;
  let n = 0;

  const person = async (role: 'owner' | 'key_manager' | 'staff') => {
    const email = `${role}${++n}@example.com`;
    const member = await addStaffWithHash(t.storage, t.clock.fn, {
      workspaceId: t.workspaceId,
      email,
      name: `${role} ${n}`,
      role,
      hash: cheapPasswordHash('right password'),
    });
    const browser = new ConsoleClient(t.app, `198.51.100.${++n}`);
    expect((await browser.signIn(email, 'right password')).statusCode).toBe(303);
    return { ...member, browser };
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    owner = (await person('owner')).browser;
  });
  afterAll(async () => t?.close());

  it('staff get 403 on the staff, audit and key pages; key managers on the staff pages only', async () => {
    const clerk = await person('staff');
    for (const url of ['/console/staff', '/console/audit', '/console/keys', '/console/notifications'])
      expect((await clerk.browser.get(url)).statusCode, url).toBe(403);
    const manager = await person('key_manager');
    expect((await manager.browser.get('/console/staff')).statusCode).toBe(403);
    const refused = await manager.browser.post('/console/staff/invite', { email: 'x@example.com', role: 'owner' });
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain('Only owners of the workspace can see and change its staff.');
    expect((await manager.browser.get('/console/audit')).statusCode).toBe(200);
    const nav = (await manager.browser.get('/console/keys')).body;
    expect(nav).toContain('href="/console/audit"');
    expect(nav).not.toContain('href="/console/staff"');
    expect((await owner.get('/console/keys')).body).toContain('href="/console/staff"');
  });

  it('an owner invites; the link is shown once and, accepted in another browser, signs the person in with that role', async () => {
    const form = await owner.get('/console/staff');
    expect(form.statusCode).toBe(200);
    const posted = await owner.post('/console/staff/invite', { email: 'Newcomer@Example.com', role: 'key_manager' });
    expect(posted.statusCode).toBe(303);
    const sent = await owner.get(posted.headers.location as string);
    expect(sent.statusCode).toBe(200);
    const link = /id="invitation" value="([^"]+)"/.exec(sent.body)?.[1];
    expect(link).toMatch(/^http:\/\/api\.test\/console\/invitations\/[\w-]{43}$/);
    const path = new URL(link!).pathname;
    // Shown once: a reload of that page shows it no more.
    const reloaded = await owner.get('/console/staff/invited');
    expect(reloaded.body).not.toContain(link!);
    expect(textOf(reloaded.body)).toContain('shown only once');
    // The staff page lists the open invitation, never its link.
    const listed = await owner.get('/console/staff');
    expect(textOf(listed.body)).toContain('newcomer@example.com');
    expect(listed.body).not.toContain(path);

    const newcomer = new ConsoleClient(t.app, '192.0.2.77');
    const open = await newcomer.get(path);
    expect(open.statusCode).toBe(200);
    expect(textOf(open.body)).toContain('as Key manager');
    const mismatch = await newcomer.post(path, {
      name: 'Nia',
      new_password: 'a long password',
      confirm_password: 'other',
    });
    expect(mismatch.statusCode).toBe(400);
    expect(textOf(mismatch.body)).toContain('The two passwords differ.');
    const joined = await newcomer.post(path, {
      name: 'Nia Newcomer',
      new_password: 'a long password',
      confirm_password: 'a long password',
    });
    expect(joined.statusCode).toBe(303);
    expect((await newcomer.get('/console/keys')).statusCode).toBe(200);
    expect((await newcomer.get('/console/staff')).statusCode).toBe(403);
    // The link works once.
    const again = await new ConsoleClient(t.app).get(path);
    expect(again.statusCode).toBe(404);
    expect(textOf(again.body)).toContain('This invitation was already used.');
  });

  it('removing someone signs them out at their next click; the last owner is refused with a clear message', async () => {
    const leaver = await person('key_manager');
    expect((await leaver.browser.get('/console/keys')).statusCode).toBe(200);
    const confirm = await owner.get(`/console/staff/${leaver.id}/remove`);
    expect(textOf(confirm.body)).toContain(`Remove ${leaver.name}?`);
    const removed = await owner.post(`/console/staff/${leaver.id}/remove`, {});
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe('/console/staff?done=removed');
    const next = await leaver.browser.get('/console/keys');
    expect(next.statusCode).toBe(303);
    expect(next.headers.location).toBe('/console/sign-in');

    const members = await t.storage.db
      .selectFrom('staff')
      .select(['id', 'role'])
      .where('workspace_id', '=', t.workspaceId)
      .where('role', '=', 'owner')
      .execute();
    expect(members).toHaveLength(1);
    const last = await owner.post(`/console/staff/${members[0]!.id}/role`, { role: 'staff' });
    expect(last.statusCode).toBe(409);
    expect(textOf(last.body)).toMatch(/is the last owner of this workspace, so they cannot be demoted/);
    const removeLast = await owner.post(`/console/staff/${members[0]!.id}/remove`, {});
    expect(removeLast.statusCode).toBe(409);
    expect(textOf(removeLast.body)).toMatch(/cannot be removed\. Make someone else an owner first/);
  });

  it('a form without its CSRF token changes nothing', async () => {
    const target = await person('staff');
    const res = await owner.post(`/console/staff/${target.id}/role`, { role: 'owner' }, null);
    expect(res.statusCode).toBe(403);
    const invite = await owner.post('/console/staff/invite', { email: 'forged@example.com', role: 'owner' }, null);
    expect(invite.statusCode).toBe(403);
    const row = await t.storage.db
      .selectFrom('staff')
      .select('role')
      .where('id', '=', target.id)
      .executeTakeFirstOrThrow();
    expect(row.role).toBe('staff');
    expect(
      await t.storage.db
        .selectFrom('staff_invitations')
        .select('email')
        .where('email', '=', 'forged@example.com')
        .execute(),
    ).toEqual([]);
  });

  it("the audit log page shows the console's actions with the person and address, filtered by person and action", async () => {
    const manager = await person('key_manager');
    const address = `198.51.100.${n}`;
    await manager.browser.get(`/console/keys/${t.keys.live.id}/pause`);
    const pause = await manager.browser.post(`/console/keys/${t.keys.live.id}/pause`, { reason: 'Audit me' });
    expect(pause.statusCode).toBe(303);
    const entries = (await listAudit(t.storage.db, t.workspaceId, { action: 'key.paused' }, null)).entries;
    expect(entries[0]).toMatchObject({ actor: manager.email, address, target: t.keys.live.id });

    // The actions of the rows shown (the filter's <select> names every action, so the text would not tell).
    const shown = async (url: string) => {
      const res = await owner.get(url);
      expect(res.statusCode).toBe(200);
      return [...res.body.matchAll(/<td><code>([a-z_.]+)<\/code><\/td>/g)].map((m) => m[1]);
    };
    const all = await shown('/console/audit');
    for (const action of ['key.paused', 'staff.removed', 'staff.joined', 'staff.invited', 'sign_in.succeeded'])
      expect(all).toContain(action);
    expect(textOf((await owner.get('/console/audit?action=key.paused')).body)).toContain('Audit me');
    expect(new Set(await shown('/console/audit?action=key.paused'))).toEqual(new Set(['key.paused']));
    const mine = await shown(`/console/audit?person=${encodeURIComponent(manager.email.toUpperCase())}`);
    expect(new Set(mine)).toEqual(new Set(['sign_in.succeeded', 'key.paused']));
    const bad = await owner.get('/console/audit?cursor=nonsense');
    expect(bad.statusCode).toBe(400);
  });
});
