import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail counts as two). */
function ipv6Groups(address: string): string[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  return [...head, ...Array<string>(missing).fill('0'), ...tail].map((g) => parseInt(g, 16).toString(16));
}

/**
 * Who a refused key is counted against (SPEC "Limits"): an IPv4 address on its own, an
 * IPv6 address by its /64, since one host is normally handed a whole /64 and could
 * otherwise walk through 2^64 addresses. IPv4-mapped IPv6 (::ffff:a.b.c.d) is IPv4.
 */
export function addressBucket(ip: string): string {
  const bare = ip.replace(/%.*$/, '');
  if (isIPv4(bare)) return bare;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  const groups = isIPv6(bare) ? ipv6Groups(bare) : null;
  if (!groups) return `other:${bare}`;
  return `${groups.slice(0, 4).join(':')}::/64`;
}
