/**
 * DECISIONS: a retrieve answers `ETag: "<version>"`; a matching If-None-Match gives 304.
 * Weak tags match too (RFC 9110: If-None-Match compares weakly).
 */
export const etagOf = (version: string): string => `"${version}"`;

export function notModified(ifNoneMatch: string | string[] | undefined, version: string): boolean {
  if (typeof ifNoneMatch !== 'string') return false;
  const tags = ifNoneMatch.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes(etagOf(version)) || tags.includes('*');
}
