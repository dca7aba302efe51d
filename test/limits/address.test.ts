import { describe, expect, it } from 'vitest';
import { addressBucket } from '../../src/limits/address.ts';

describe('the address a refused key is counted against', () => {
  it('is the IPv4 address itself, also when written IPv4-mapped', () => {
    expect(addressBucket('198.51.100.7')).toBe('198.51.100.7');
    expect(addressBucket('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressBucket('198.51.100.8')).not.toBe(addressBucket('198.51.100.7'));
  });

  it('is the /64 of an IPv6 address, however it is written', () => {
    const bucket = '2001:db8:1:2::/64';
    for (const ip of [
      '2001:db8:1:2::1',
      '2001:0DB8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:db8:1:2:0:0:0:0',
      'fe80::1%eth0'.replace('fe80::1', '2001:db8:1:2::9'),
    ]) {
      expect(addressBucket(ip)).toBe(bucket);
    }
    expect(addressBucket('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('2001:db8::1.2.3.4')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('64:ff9b:1:2:3:4:1.2.3.4')).toBe('64:ff9b:1:2::/64');
  });
});
