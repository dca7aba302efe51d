import { createHash } from 'node:crypto';

/**
 * An opaque keyset cursor (DECISIONS "Lists and ids"): the last row's (created_at, id),
 * bound to the collection and its filters by a short digest, so a cursor used with
 * another collection or other filters is refused instead of paging wrongly.
 */
export interface CursorPosition {
  createdAt: number;
  id: string;
}

function binding(collection: string, filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(filters)
      .sort()
      .map((k) => [k, filters[k] ?? null]),
  );
  return createHash('sha256').update(`${collection}\n${canonical}`).digest('base64url').slice(0, 12);
}

export function encodeCursor(collection: string, filters: Record<string, unknown>, pos: CursorPosition): string {
  const raw = JSON.stringify([binding(collection, filters), pos.createdAt, pos.id]);
  return Buffer.from(raw, 'utf8').toString('base64url');
}

/** The position, or null when the cursor is malformed or was made for other filters. */
export function decodeCursor(
  collection: string,
  filters: Record<string, unknown>,
  cursor: string,
): CursorPosition | null {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 3) return null;
    const [bind, createdAt, id] = parsed;
    if (bind !== binding(collection, filters)) return null;
    // The binding is no secret (a digest of public inputs), so check what a client could forge.
    if (!Number.isSafeInteger(createdAt) || createdAt < 0) return null;
    if (typeof id !== 'string' || !/^[a-z]+_[0-9A-Za-z]{22}$/.test(id)) return null;
    return { createdAt, id };
  } catch {
    return null;
  }
}
