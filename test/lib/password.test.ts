import { describe, expect, it } from 'vitest';
import { PASSWORD_COST, hashPassword, needsRehash, verifyPassword } from '../../src/lib/password.ts';
import { cheapPasswordHash, legacyPasswordHash } from '../helpers/staff.ts';

/** Staff password hashes: OWASP's scrypt cost, stored with the hash, off the event loop. */
// Full-cost hashes take seconds each on a loaded machine.
describe('password hashing', { timeout: 120_000 }, () => {
  it('hashes at N=2^17, r=8, p=1 and stores the cost with the salt and hash', async () => {
    const stored = await hashPassword('correct horse');
    expect(PASSWORD_COST).toEqual({ N: 131072, r: 8, p: 1 });
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
    expect(needsRehash(stored)).toBe(false);
  });

  it('verifies a hash made at another cost by its own parameters, and asks for it to be made again', async () => {
    for (const stored of [legacyPasswordHash('old one'), cheapPasswordHash('old one')]) {
      expect(await verifyPassword('old one', stored)).toBe(true);
      expect(await verifyPassword('old two', stored)).toBe(false);
      expect(needsRehash(stored)).toBe(true);
    }
  });

  it('a damaged or foreign hash verifies nothing and never throws', async () => {
    const good = cheapPasswordHash('pw');
    const [, , r, p, salt, hash] = good.split('$');
    for (const stored of [
      null,
      '',
      'bcrypt$x$y',
      'scrypt$$',
      `scrypt$1000$${r}$${p}$${salt}$${hash}`, // N not a power of two
      `scrypt$${2 ** 30}$${r}$${p}$${salt}$${hash}`, // a cost that would take gigabytes
      `scrypt$1024$0$1$${salt}$${hash}`,
      `scrypt$1024$8$1$${salt}$`,
      `scrypt$1024$8$${salt}$${hash}`,
    ]) {
      expect(await verifyPassword('pw', stored)).toBe(false);
    }
  });

  // Ordering, not timing: a callback queued after the check starts runs before the check ends,
  // which cannot happen if the hash ran on the event loop's own thread.
  it('hashing and verifying leave the event loop free while scrypt runs', async () => {
    const order: string[] = [];
    const hashing = hashPassword('pw').then((h) => {
      order.push('hashed');
      return h;
    });
    setImmediate(() => order.push('other work'));
    const stored = await hashing;
    expect(order).toEqual(['other work', 'hashed']);

    order.length = 0;
    const verifying = verifyPassword('pw', stored).then(() => order.push('verified'));
    setImmediate(() => order.push('other work'));
    await verifying;
    expect(order).toEqual(['other work', 'verified']);
  });
});
