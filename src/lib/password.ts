import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** Staff passwords: scrypt from node:crypto with a 16-byte salt, as `scrypt$<salt>$<hash>`. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

function parse(stored: string | null): { salt: Buffer; hash: Buffer } | null {
  if (!stored) return null;
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return null;
  return { salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

export function verifyPassword(password: string, stored: string | null): boolean {
  const parts = parse(stored);
  if (!parts) return false;
  return timingSafeEqual(parts.hash, scryptSync(password, parts.salt, parts.hash.length));
}

/** The same check off the event loop: a server signing people in must not stall its requests. */
export async function verifyPasswordAsync(password: string, stored: string | null): Promise<boolean> {
  const parts = parse(stored);
  if (!parts) return false;
  return timingSafeEqual(parts.hash, await scryptAsync(password, parts.salt, parts.hash.length));
}

/** A hash no password matches by chance: checked for unknown emails, so they take as long as known ones. */
let decoy: string | null = null;
export function decoyPasswordHash(): string {
  decoy ??= hashPassword(randomBytes(24).toString('base64url'));
  return decoy;
}
