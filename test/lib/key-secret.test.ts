import { describe, expect, it } from 'vitest';
import { checkKeySecret, hashKeySecret, newKeySecret } from '../../src/lib/key-secret.ts';

/** Secrets made before the checksum came from zlib: keys handed out then must keep working. */
const ISSUED = [
  ['vw_test_nWlGgLW7W3pRvDvSEHf5qg9mxhOdhbkd0LilwK', 'test'],
  ['vw_live_wcBunIATaZB4uFCL4W2hTsEnstw0MJwj2mfg14', 'live'],
  ['vw_live_dp6npyfmbdINgsYc8ZqV9wwkRlh06Ctp4BPxHq', 'live'],
] as const;

describe('key secrets', () => {
  it.each(ISSUED)('a secret issued earlier, %s, still passes its checksum as a %s key', (secret, mode) => {
    expect(checkKeySecret(secret)).toBe(mode);
  });

  it('a secret with one character mistyped is refused by its checksum', () => {
    for (const [secret] of ISSUED) {
      const i = 20;
      const typo = secret.slice(0, i) + (secret[i] === 'a' ? 'b' : 'a') + secret.slice(i + 1);
      expect(checkKeySecret(typo)).toBeNull();
    }
    expect(checkKeySecret(ISSUED[0][0].replace('vw_test_', 'vw_live_'))).toBeNull();
  });

  it('a new secret has the shape and checksum of its mode', () => {
    for (const mode of ['test', 'live'] as const) {
      const secret = newKeySecret(mode);
      expect(secret).toMatch(new RegExp(`^vw_${mode}_[0-9A-Za-z]{38}$`));
      expect(checkKeySecret(secret)).toBe(mode);
      expect(hashKeySecret(secret)).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
