import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setStaffPassword } from '../../src/resources/staff/staff.service.ts';
import { addStaff, createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { verifyPassword } from '../../src/lib/password.ts';
import { addStaffWithHash, cheapPasswordHash, legacyPasswordHash } from '../helpers/staff.ts';
import { ConsoleClient, textOf } from './client.ts';

/** Staff sign-in (docs/console.md): passwords, sessions the server ends, lock-out, roles, CSRF, headers. */
describe.each(ENGINES)('console sign-in and sessions on %s', { timeout: 120_000 }, (engine) => {
  let t: TestApp;
  let n = 0;
  /** A new staff member, so each test has its own email and lock-out counts. */
  const person = async (role: 'owner' | 'key_manager' | 'staff' = 'owner') => {
    const email = `person${++n}@example.com`;
    await addStaffWithHash(t.storage, t.clock.fn, {
      workspaceId: t.workspaceId,
      email,
      name: `Person ${n}`,
      role,
      hash: cheapPasswordHash('right password'),
    });
    return email;
  };
  const browser = (ip = `198.51.100.${++n}`) => new ConsoleClient(t.app, ip);

  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('the right password signs in with an HttpOnly, SameSite=Lax session cookie and reaches the keys page', async () => {
    const email = await person();
    const b = browser();
    const res = await b.signIn(email, 'right password');
    expect(res.statusCode).toBe(303);
    const cookie = (
      res.cookies as { name: string; httpOnly?: boolean; sameSite?: string; path?: string; secure?: boolean }[]
    ).find((c) => c.name === 'venue_console_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/console' });
    expect(cookie?.secure).toBeFalsy(); // plain HTTP here; Secure over HTTPS
    const keys = await b.get('/console/keys');
    expect(keys.statusCode).toBe(200);
    expect(keys.body).toContain('<h1>API keys</h1>');
  });

  it('a wrong password or an unknown email is refused alike, and signs nobody in', async () => {
    const email = await person();
    const b = browser();
    const wrong = await b.signIn(email, 'wrong password');
    const unknown = await b.signIn('nobody@example.com', 'right password');
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(textOf(res.body)).toContain('The email or password is not right.');
    }
    expect(b.cookies.has('venue_console_session')).toBe(false);
    expect((await b.get('/console/keys')).headers.location).toBe('/console/sign-in');
  });

  it('after 10 failures in 15 minutes the email is locked for 15 minutes, with the right password too', async () => {
    const email = await person();
    const b = browser();
    for (let i = 0; i < 9; i++) expect((await b.signIn(email, `wrong ${i}`)).statusCode).toBe(401);
    const tenth = await b.signIn(email, 'wrong 9');
    expect(tenth.statusCode).toBe(429);
    // Another address, the right password: still locked, because the lock is the email's.
    const other = browser();
    const locked = await other.signIn(email, 'right password');
    expect(locked.statusCode).toBe(429);
    expect(textOf(locked.body)).toMatch(/blocked for 15 more minute/);
    t.clock.now += 14 * 60_000;
    expect((await other.signIn(email, 'right password')).statusCode).toBe(429);
    t.clock.now += 60_000 + 1;
    expect((await other.signIn(email, 'right password')).statusCode).toBe(303);
  });

  it('failures spread over more than 15 minutes do not lock the email', async () => {
    const email = await person();
    const b = browser();
    for (let i = 0; i < 9; i++) await b.signIn(email, 'wrong');
    t.clock.now += 15 * 60_000 + 1;
    expect((await b.signIn(email, 'wrong')).statusCode).toBe(401);
    expect((await b.signIn(email, 'right password')).statusCode).toBe(303);
  });

  it('one address is held to 50 failures in 15 minutes across all emails', async () => {
    // Six known emails with cheap hashes, none failed ten times: an unknown email would check
    // the decoy at the full cost, 50 times.
    const guessed = [];
    for (let i = 0; i < 6; i++) guessed.push(await person());
    const b = browser('192.0.2.200');
    await b.get('/console/sign-in');
    for (let i = 0; i < 49; i++)
      expect((await b.post('/console/sign-in', { email: guessed[i % 6]!, password: `x${i}` })).statusCode).toBe(401);
    expect((await b.post('/console/sign-in', { email: guessed[1]!, password: 'x49' })).statusCode).toBe(429);
    const email = await person();
    expect((await b.signIn(email, 'right password')).statusCode).toBe(429);
    expect((await browser('192.0.2.201').signIn(email, 'right password')).statusCode).toBe(303);
  });

  it('sign-out ends the session on the server: the old cookie no longer signs in', async () => {
    const email = await person();
    const b = browser();
    await b.signIn(email, 'right password');
    const stolen = b.cookies.get('venue_console_session')!;
    await b.get('/console/keys');
    expect((await b.post('/console/sign-out', {})).statusCode).toBe(303);
    const replay = new ConsoleClient(t.app);
    replay.cookies.set('venue_console_session', stolen);
    expect((await replay.get('/console/keys')).headers.location).toBe('/console/sign-in');
  });

  it('a session ends after 2 idle hours, and after 12 hours however busy', async () => {
    const email = await person();
    const idle = browser();
    await idle.signIn(email, 'right password');
    t.clock.now += 2 * 3_600_000 - 1_000;
    expect((await idle.get('/console/keys')).statusCode).toBe(200);
    t.clock.now += 2 * 3_600_000;
    expect((await idle.get('/console/keys')).headers.location).toBe('/console/sign-in');
    const busy = browser();
    await busy.signIn(email, 'right password');
    for (let hour = 0; hour < 11; hour++) {
      t.clock.now += 3_600_000;
      expect((await busy.get('/console/keys')).statusCode).toBe(200);
    }
    t.clock.now += 3_600_000;
    expect((await busy.get('/console/keys')).headers.location).toBe('/console/sign-in');
  });

  it('a password change ends every session of that person, from the console or the CLI service', async () => {
    const email = await person();
    const [a, b, c] = [browser(), browser(), browser()];
    for (const x of [a, b, c]) await x.signIn(email, 'right password');
    await a.get('/console/password');
    const changed = await a.post('/console/password', {
      current_password: 'right password',
      new_password: 'new password 1',
      confirm_password: 'new password 1',
    });
    expect(changed.statusCode).toBe(303);
    for (const x of [a, b, c]) expect((await x.get('/console/keys')).headers.location).toBe('/console/sign-in');
    expect((await a.signIn(email, 'right password')).statusCode).toBe(401);
    expect((await a.signIn(email, 'new password 1')).statusCode).toBe(303);
    await b.signIn(email, 'new password 1');
    const result = await setStaffPassword(t.storage, t.clock.fn, {
      workspaceId: t.workspaceId,
      email,
      password: 'third password',
    });
    expect(result.sessions_ended).toBe(2);
    for (const x of [a, b]) expect((await x.get('/console/keys')).headers.location).toBe('/console/sign-in');
  });

  it('a wrong current password or a short new one changes nothing and says why next to the field', async () => {
    const email = await person();
    const b = browser();
    await b.signIn(email, 'right password');
    await b.get('/console/password');
    const wrong = await b.post('/console/password', {
      current_password: 'not it',
      new_password: 'new password 1',
      confirm_password: 'new password 1',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toMatch(/id="current_password-error">The current password is not right/);
    const short = await b.post('/console/password', {
      current_password: 'right password',
      new_password: 'short',
      confirm_password: 'short',
    });
    expect(short.statusCode).toBe(400);
    expect(short.body).toMatch(/id="new_password-error"/);
    expect((await b.get('/console/keys')).statusCode).toBe(200);
    expect((await browser().signIn(email, 'right password')).statusCode).toBe(303);
  });

  it('a `staff` member signs in but gets 403 on every key page; key managers get in', async () => {
    const b = browser();
    await b.signIn(await person('staff'), 'right password');
    const home = await b.get('/console');
    expect(home.statusCode).toBe(200);
    expect(textOf(home.body)).toMatch(/does not manage API keys/);
    const key = t.keys.live.id;
    for (const url of [
      '/console/keys',
      '/console/keys/new',
      `/console/keys/${key}`,
      `/console/keys/${key}/pause`,
      `/console/keys/${key}/undo`,
      '/console/notifications',
    ])
      expect({ url, status: (await b.get(url)).statusCode }).toEqual({ url, status: 403 });
    await b.get('/console/password');
    const pause = await b.post(`/console/keys/${key}/pause`, {});
    expect(pause.statusCode).toBe(403);
    const manager = browser();
    await manager.signIn(await person('key_manager'), 'right password');
    expect((await manager.get('/console/keys')).statusCode).toBe(200);
  });

  it('a form without its CSRF token, or with a forged one, is refused with 403 and signs nobody in', async () => {
    const email = await person();
    const b = browser();
    await b.get('/console/sign-in');
    expect((await b.post('/console/sign-in', { email, password: 'right password' }, null)).statusCode).toBe(403);
    expect((await b.post('/console/sign-in', { email, password: 'right password' }, 'forged')).statusCode).toBe(403);
    expect(b.cookies.has('venue_console_session')).toBe(false);
    // A token from another browser's cookie does not pass either.
    const other = browser();
    await other.get('/console/sign-in');
    expect((await b.post('/console/sign-in', { email, password: 'right password' }, other.csrf)).statusCode).toBe(403);
  });

  it("a CSRF token is bound to its session: another session refuses it, even with the token's own secret cookie", async () => {
    const [a, b] = [browser(), browser()];
    await a.signIn(await person(), 'right password');
    await b.signIn(await person(), 'right password');
    await a.get('/console/password');
    await b.get('/console/password');
    // Cookie tossing: B's browser is given A's CSRF secret, and a page posts A's token as B.
    const tossed = new ConsoleClient(t.app);
    tossed.cookies.set('venue_console_session', b.cookies.get('venue_console_session')!);
    tossed.cookies.set('venue_console_csrf', a.cookies.get('venue_console_csrf')!);
    expect((await tossed.post('/console/sign-out', {}, a.csrf)).statusCode).toBe(403);
    expect((await b.get('/console/keys')).statusCode).toBe(200); // still signed in
    // A's token still works for A, and B's own token for B.
    expect((await a.post('/console/sign-out', {})).statusCode).toBe(303);
    expect((await b.post('/console/sign-out', {})).statusCode).toBe(303);
  });

  it('signing in makes a new CSRF secret: no token made before it passes after', async () => {
    const email = await person();
    const b = browser();
    await b.get('/console/sign-in');
    const [secretBefore, tokenBefore] = [b.cookies.get('venue_console_csrf'), b.csrf];
    expect(secretBefore).toBeTruthy();
    const res = await b.post('/console/sign-in', { email, password: 'right password' });
    expect(res.statusCode).toBe(303);
    const rotated = (res.cookies as { name: string; value: string; path?: string; httpOnly?: boolean }[]).find(
      (c) => c.name === 'venue_console_csrf',
    );
    expect(rotated).toMatchObject({ path: '/console', httpOnly: true });
    expect(rotated!.value).not.toBe(secretBefore);
    await b.get('/console/password');
    expect(b.csrf).not.toBe(tokenBefore);
    expect((await b.post('/console/sign-out', {}, tokenBefore)).statusCode).toBe(403);
    // The same token with the old secret put back is refused too: it was made signed out.
    const back = new ConsoleClient(t.app);
    back.cookies.set('venue_console_session', b.cookies.get('venue_console_session')!);
    back.cookies.set('venue_console_csrf', secretBefore!);
    expect((await back.post('/console/sign-out', {}, tokenBefore)).statusCode).toBe(403);
    expect((await b.post('/console/sign-out', {})).statusCode).toBe(303);
  });

  it('a hash in the old format, at the old cost, signs in and is made again at the full cost', async () => {
    const email = `legacy${++n}@example.com`;
    const old = legacyPasswordHash('right password');
    const member = await addStaffWithHash(t.storage, t.clock.fn, {
      workspaceId: t.workspaceId,
      email,
      name: 'Legacy',
      role: 'owner',
      hash: old,
    });
    const hashOf = async () =>
      (
        await t.storage.db
          .selectFrom('staff')
          .select('password_hash')
          .where('id', '=', member.id)
          .executeTakeFirstOrThrow()
      ).password_hash;
    // A wrong password changes nothing.
    expect((await browser().signIn(email, 'wrong password')).statusCode).toBe(401);
    expect(await hashOf()).toBe(old);
    expect((await browser().signIn(email, 'right password')).statusCode).toBe(303);
    const upgraded = await hashOf();
    expect(upgraded).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(await verifyPassword('right password', upgraded)).toBe(true);
    expect((await browser().signIn(email, 'right password')).statusCode).toBe(303);
    expect(await hashOf()).toBe(upgraded);
  });

  it('console pages carry a strict CSP and the security headers; the API answers do not change', async () => {
    const page = await browser().get('/console/sign-in');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|https?:/);
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(page.body).not.toMatch(/<script>|<style>| style="|https?:\/\//);
    const css = await browser().get('/console/assets/console.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const api = await t.call(t.keys.live, { method: 'GET', url: '/key' });
    expect(api.statusCode).toBe(200);
    expect(api.headers['content-security-policy']).toBeUndefined();
    expect(api.headers['set-cookie']).toBeUndefined();
    // A form body is still 415 on the API: the form parser is the console's alone.
    const form = await t.call(t.keys.live, {
      method: 'PATCH',
      url: '/customers/cus_0000000000000000000000',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'first_name=x',
    });
    expect(form.statusCode).toBe(415);
  });

  it('an email that is staff of two workspaces signs in to the first whose password matches', async () => {
    const ws2 = await createWorkspace(t.storage, t.clock.fn, { name: 'Second' });
    const email = await person();
    await addStaff(t.storage, t.clock.fn, {
      workspaceId: ws2.id,
      email,
      name: 'Twin',
      role: 'owner',
      password: 'other password',
    });
    const b = browser();
    await b.signIn(email, 'other password');
    expect(textOf((await b.get('/console/keys')).body)).toContain('Second');
  });

  it('unknown console pages are a 404 page, and junk sent to the forms is a 4xx page, never a 500', async () => {
    const b = browser();
    expect((await b.get('/console/nope')).statusCode).toBe(404);
    await b.get('/console/sign-in');
    const junk = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: { 'content-type': 'application/json', cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      payload: '{"email": [1,2], "password": {"a": 1}, "_csrf": "x"}',
    });
    expect(junk.statusCode).toBe(403);
    const big = await b.post('/console/sign-in', { email: 'x'.repeat(5000), password: 'y'.repeat(5000) });
    expect(big.statusCode).toBe(401);
    const typed = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: { 'content-type': 'text/plain' },
      payload: 'hi',
    });
    expect(typed.statusCode).toBeLessThan(500);
    expect(typed.headers['content-type']).toMatch(/text\/html/);
  });
});
