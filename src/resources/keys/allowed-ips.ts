import { BlockList, isIP } from 'node:net';

/**
 * The addresses a key may be used from (DECISIONS "Request log, key rolling, allowed
 * addresses"): IPv4 or IPv6 addresses and CIDR ranges, matched with Node's BlockList.
 */
export const MAX_ALLOWED_IPS = 50;

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket shows IPv4) read as IPv4. */
export function plainAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? mapped[1]! : ip;
}

/**
 * Checks and normalises a list as given (`--allow-ip`, the console); throws a message that
 * names the first entry it cannot read. A bare address is kept as given, a range as
 * `address/prefix`.
 */
export function parseAllowedIps(entries: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(plainAddress(address));
    if (family === 0 || extra !== undefined)
      throw new Error(`"${entry.slice(0, 60)}" is not an IPv4 or IPv6 address or CIDR range`);
    if (prefix !== undefined) {
      const bits = family === 4 ? 32 : 128;
      if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits)
        throw new Error(`"${entry.slice(0, 60)}" has a prefix length outside 0-${bits}`);
      out.push(`${plainAddress(address)}/${Number(prefix)}`);
    } else {
      out.push(plainAddress(address));
    }
  }
  const unique = [...new Set(out)];
  if (unique.length > MAX_ALLOWED_IPS) throw new Error(`a key may list at most ${MAX_ALLOWED_IPS} addresses`);
  return unique;
}

/** Node's name for the family of an address isIP accepted. */
const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/**
 * Built once a list: a key's list is read with the key (its array lives as long as the key
 * in the key cache) and checked on every request.
 */
const lists = new WeakMap<readonly string[], BlockList>();

function blockListOf(allowed: readonly string[]): BlockList {
  let list = lists.get(allowed);
  if (!list) {
    list = new BlockList();
    for (const entry of allowed) {
      const [address, prefix] = entry.split('/') as [string, string | undefined];
      if (prefix === undefined) list.addAddress(address, familyOf(address));
      else list.addSubnet(address, Number(prefix), familyOf(address));
    }
    lists.set(allowed, list);
  }
  return list;
}

/** True when `ip` may use a key with this list (an empty list allows anywhere). */
export function addressAllowed(allowed: readonly string[], ip: string): boolean {
  if (allowed.length === 0) return true;
  const address = plainAddress(ip);
  if (isIP(address) === 0) return false;
  return blockListOf(allowed).check(address, familyOf(address));
}
