import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Staff passwords: scrypt from node:crypto, run on libuv's thread pool so a sign-in never
 * stalls other requests. The cost is OWASP's scrypt minimum (N=2^17, r=8, p=1); a hash
 * carries its own parameters as `scrypt$N$r$p$<salt>$<hash>`, so a hash made at another cost
 * still verifies and is re-hashed at this one at its owner's next sign-in.
 */
export const PASSWORD_COST = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

/** The format before parameters were stored (`scrypt$<salt>$<hash>`) was made at Node's default cost. */
const LEGACY_COST = Object.freeze({ N: 2 ** 14, r: 8, p: 1 });

/** Bounds on a stored hash's parameters, so a damaged row cannot ask for gigabytes. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

interface Cost {
  N: number;
  r: number;
  p: number;
}

interface ParsedHash extends Cost {
  salt: Buffer;
  hash: Buffer;
}

function scryptAsync(password: string, salt: Buffer, keylen: number, cost: Cost): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node refuses anything over 32 MiB unless maxmem says more.
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 2 * 128 * cost.N * cost.r };
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, PASSWORD_COST);
  const { N, r, p } = PASSWORD_COST;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

const whole = (s: string | undefined) => (s !== undefined && /^\d{1,8}$/.test(s) ? Number(s) : Number.NaN);

function parse(stored: string | null): ParsedHash | null {
  if (!stored) return null;
  const parts = stored.split('$');
  if (parts[0] !== 'scrypt') return null;
  let cost: Cost;
  let salt: string | undefined;
  let hash: string | undefined;
  if (parts.length === 3) {
    cost = LEGACY_COST;
    [, salt, hash] = parts;
  } else if (parts.length === 6) {
    cost = { N: whole(parts[1]), r: whole(parts[2]), p: whole(parts[3]) };
    [, , , , salt, hash] = parts;
  } else return null;
  const { N, r, p } = cost;
  // N a power of two above 1, as scrypt requires; anything else is not a hash we made.
  if (!(N > 1 && N <= MAX_N && (N & (N - 1)) === 0 && r >= 1 && r <= MAX_R && p >= 1 && p <= MAX_P)) return null;
  if (!salt || !hash) return null;
  return { ...cost, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

/** Whether `password` is the one `stored` was made from. Off the event loop, like hashing. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = parse(stored);
  if (!parts || parts.hash.length === 0) return false;
  return timingSafeEqual(parts.hash, await scryptAsync(password, parts.salt, parts.hash.length, parts));
}

/** Whether a stored hash was made at a lower cost than today's, and should be made again at sign-in. */
export function needsRehash(stored: string | null): boolean {
  const parts = parse(stored);
  if (!parts) return false;
  return parts.N < PASSWORD_COST.N || parts.r < PASSWORD_COST.r || parts.p < PASSWORD_COST.p;
}

/** A hash no password matches by chance: checked for unknown emails, so they take as long as known ones. */
let decoy: Promise<string> | null = null;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(24).toString('base64url'));
  return decoy;
}
