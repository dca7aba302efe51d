import { invalid } from '../errors.ts';

/**
 * `If-Match` (SPEC "Rules common to all endpoints" 5): the ETag, or the version in double
 * quotes; a list of them, or `*`. Answers the versions listed, "*" or null when absent.
 * If-Match compares strongly (RFC 9110 section 13.1.1): a weak tag `W/"N"` is well formed
 * but never matches, so it is left out of the list (all weak: an empty list, so 412).
 * Anything else is a 400 (DECISIONS "HTTP and errors": bad If-Match).
 */
const TAG = /^(W\/)?"(\d{1,15})"$/;

export function parseIfMatch(header: string | string[] | undefined): string[] | '*' | null {
  if (header === undefined) return null;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '*') return '*';
  const versions: string[] = [];
  for (const part of text.split(',')) {
    const m = TAG.exec(part.trim());
    if (!m) {
      throw invalid('If-Match must be the ETag you read, the version in double quotes ("3"), or *.', [
        { field: 'If-Match', message: 'is not an entity tag' },
      ]);
    }
    if (m[1] === undefined) versions.push(String(Number(m[2])));
  }
  return versions;
}
