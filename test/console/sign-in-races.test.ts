import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SignInGate } from '../../src/resources/staff/sign-in-gate.ts';
import { countFailures } from '../../src/resources/staff/sign-in.repo.ts';
import { SIGN_IN_RULES } from '../../src/resources/staff/sign-in.model.ts';
import { signIn, type SignInResult } from '../../src/resources/staff/sign-in.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { addStaffWithHash, cheapPasswordHash } from '../helpers/staff.ts';
import { ENGINES } from '../helpers/storage.ts';
import { ConsoleClient } from './client.ts';

/** Every password check, by the stored hash it checks against: how many ran, at most at once, and holds on some. */
const checks = vi.hoisted(() => ({
  calls: new Map<string, number>(),
  running: new Map<string, number>(),
  most: new Map<string, number>(),
  /** A check against one of these hashes waits for its promise before it hashes. */
  held: new Map<string, Promise<void>>(),
}));

vi.mock('../../src/lib/password.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/lib/password.ts')>();
  const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n).get(key)!;
  return {
    ...real,
    verifyPassword: async (password: string, stored: string | null) => {
      const key = stored ?? '';
      add(checks.calls, key, 1);
      checks.most.set(key, Math.max(checks.most.get(key) ?? 0, add(checks.running, key, 1)));
      try {
        await checks.held.get(key);
        return await real.verifyPassword(password, stored);
      } finally {
        add(checks.running, key, -1);
      }
    },
  };
});

const sum = (map: Map<string, number>, keys: string[]) => keys.reduce((n, key) => n + (map.get(key) ?? 0), 0);
const tally = (kinds: string[]) =>
  Object.fromEntries([...new Set(kinds)].map((k) => [k, kinds.filter((x) => x === k).length]));

/** Sign-in attempts sent at once (docs/console.md "Lock-out"): counted as if sent one by one, and never a flood of hashes. */
describe.each(ENGINES)('console sign-ins sent at once on %s', { timeout: 120_000 }, (engine) => {
  let t: TestApp;
  let n = 0;
  /** A new staff member with a cheap hash of "right password". */
  const person = async () => {
    const email = `racer${++n}@example.com`;
    const hash = cheapPasswordHash('right password');
    await addStaffWithHash(t.storage, t.clock.fn, {
      workspaceId: t.workspaceId,
      email,
      name: `Racer ${n}`,
      role: 'owner',
      hash,
    });
    return { email, hash };
  };
  /** One attempt through a gate of its own, as if each came to a process of its own. */
  const fromOwnProcess = (email: string, password: string, ip: string) =>
    signIn(t.storage, t.clock.fn, new SignInGate(), { email, password, ip });
  const hold = (hashes: string[]) => {
    let release!: () => void;
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const hash of hashes) checks.held.set(hash, until);
    return release;
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterEach(() => checks.held.clear());
  afterAll(async () => t?.close());

  it('31 tries at one email sent at once from as many processes, 30 wrong and the right one last, never sign in', async () => {
    const { email, hash } = await person();
    // The right one is counted after ten wrong ones: SQLite runs write transactions in the order
    // asked, and PostgreSQL's pool (ten connections) serves its waiters in turn.
    const passwords = [...Array.from({ length: 30 }, (_, i) => `wrong ${i}`), 'right password'];
    const results = await Promise.all(
      passwords.map((password, i) => fromOwnProcess(email, password, `198.51.100.${i}`)),
    );
    // One after another: 9 refused, the 10th starts the lock, and the rest (the right one too) meet it uncounted.
    expect(tally(results.map((r) => r.kind))).toEqual({ refused: 9, locked: 22 });
    expect(results.at(-1)!.kind).toBe('locked');
    expect(await countFailures(t.storage.db, { column: 'email', value: email }, 0)).toBe(SIGN_IN_RULES.emailFailures);
    expect(checks.calls.get(hash)).toBe(SIGN_IN_RULES.emailFailures);
  });

  it('60 wrong tries from one address to 60 emails sent at once count 50: the 50th locks the address, the rest are refused uncounted', async () => {
    const people = [];
    for (let i = 0; i < 60; i++) people.push(await person());
    const ip = '192.0.2.60';
    const results = await Promise.all(people.map(({ email }) => fromOwnProcess(email, 'wrong', ip)));
    expect(tally(results.map((r) => r.kind))).toEqual({ refused: SIGN_IN_RULES.addressFailures - 1, locked: 11 });
    expect(await countFailures(t.storage.db, { column: 'address', value: ip }, 0)).toBe(SIGN_IN_RULES.addressFailures);
    expect(
      sum(
        checks.calls,
        people.map((p) => p.hash),
      ),
    ).toBe(SIGN_IN_RULES.addressFailures);
  });

  it('while 30 wrong tries flood one email, another person signs in, and the flood checks one password at a time', async () => {
    const flooded = await person();
    const other = await person();
    // The flood's checks wait until the other person is signed in: that sign-in waits on none of them.
    const release = hold([flooded.hash]);
    const attacker = new ConsoleClient(t.app, '192.0.2.30');
    await attacker.get('/console/sign-in');
    const flood = Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        attacker.post('/console/sign-in', { email: flooded.email, password: `wrong ${i}` }),
      ),
    );
    const signedIn = await new ConsoleClient(t.app, '198.51.100.200').signIn(other.email, 'right password');
    release();
    const answers = await flood;
    expect(signedIn.statusCode).toBe(303);
    expect(checks.most.get(flooded.hash)).toBe(1);
    // Those past the one being checked are answered at once, as a lock-out answers.
    expect(answers.every((a) => a.statusCode === 401 || a.statusCode === 429)).toBe(true);
    expect(answers.filter((a) => a.statusCode === 429).length).toBeGreaterThan(0);
  });

  it('one address has ten sign-ins checked at a time in a process; more are answered at once as a lock-out', async () => {
    const people = [];
    for (let i = 0; i < 15; i++) people.push(await person());
    const hashes = people.map((p) => p.hash);
    const release = hold(hashes);
    const b = new ConsoleClient(t.app, '192.0.2.15');
    await b.get('/console/sign-in');
    const answered: LightMyRequestResponse[] = [];
    const all = Promise.all(
      people.map(({ email }) =>
        b.post('/console/sign-in', { email, password: 'wrong' }).then((res) => {
          answered.push(res);
          return res;
        }),
      ),
    );
    // Every try is either answered or being checked (held until released).
    await vi.waitFor(() => expect(answered.length + sum(checks.running, hashes)).toBe(15), {
      timeout: 30_000,
      interval: 20,
    });
    expect(sum(checks.running, hashes)).toBe(SIGN_IN_RULES.inFlightPerAddress);
    expect(answered.map((a) => [a.statusCode, a.headers['retry-after']])).toEqual(Array(5).fill([429, '1']));
    release();
    expect((await all).filter((a) => a.statusCode === 401)).toHaveLength(SIGN_IN_RULES.inFlightPerAddress);
  });

  it('the right password as the tenth try signs in and leaves the email open, as it did before any lock', async () => {
    const { email } = await person();
    const ip = '198.51.100.210';
    const tries: SignInResult[] = [];
    for (let i = 0; i < 9; i++) tries.push(await fromOwnProcess(email, `wrong ${i}`, ip));
    expect(tries.every((r) => r.kind === 'refused')).toBe(true);
    expect((await fromOwnProcess(email, 'right password', ip)).kind).toBe('signed_in');
    expect((await fromOwnProcess(email, 'right password', '198.51.100.211')).kind).toBe('signed_in');
    expect(await countFailures(t.storage.db, { column: 'email', value: email }, 0)).toBe(0);
  });

  it("the right password as an address's fiftieth try signs in and leaves it open; its next failure locks it", async () => {
    const people = [];
    for (let i = 0; i < 7; i++) people.push(await person());
    const ip = '192.0.2.50';
    for (let i = 0; i < 49; i++) expect((await fromOwnProcess(people[i % 6]!.email, `x${i}`, ip)).kind).toBe('refused');
    // Each counted as the 50th, then uncounted by its success: the address stays open.
    expect((await fromOwnProcess(people[6]!.email, 'right password', ip)).kind).toBe('signed_in');
    expect((await fromOwnProcess(people[6]!.email, 'right password', ip)).kind).toBe('signed_in');
    expect((await fromOwnProcess(people[6]!.email, 'wrong', ip)).kind).toBe('locked');
    expect((await fromOwnProcess(people[0]!.email, 'right password', ip)).kind).toBe('locked');
  });
});
