import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomBase62, toBase62 } from './ids.ts';

/**
 * DECISIONS "Keys": `vw_test_`/`vw_live_` + 32 base62 characters + a 6-character base62
 * CRC32 of what came before (GitHub's token format), so a mistyped key is refused
 * without touching the database. Only the SHA-256 digest is stored.
 */
export type KeyMode = 'test' | 'live';

const SHAPE = /^vw_(test|live)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

export function newKeySecret(mode: KeyMode): string {
  const body = `vw_${mode}_${randomBase62(32)}`;
  return body + toBase62(crc32(body), 6);
}

/** The mode a well-formed secret claims, or null when its shape or checksum is wrong. */
export function checkKeySecret(secret: string): KeyMode | null {
  const m = SHAPE.exec(secret);
  if (!m) return null;
  const body = secret.slice(0, -6);
  return toBase62(crc32(body), 6) === m[3] ? (m[1] as KeyMode) : null;
}

export function hashKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
