import { invalid } from '../errors.ts';

/**
 * `If-Match` (SPEC "Rules common to all endpoints" 5): the ETag, or the version in double
 * quotes; a list of them, or `*`. Answers the versions listed, "*" or null when absent.
 * Anything else is a 400 (DECISIONS "HTTP and errors": bad If-Match).
 */
const TAG = /^(?:W\/)?"(\d{1,15})"$/;

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
    versions.push(String(Number(m[1])));
  }
  return versions;
}
