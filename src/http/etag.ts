import type { FastifyReply, FastifyRequest } from 'fastify';

/** DECISIONS: a retrieve answers `ETag: "<version>"`; a matching If-None-Match gives 304. */
export function sendVersioned<T>(request: FastifyRequest, reply: FastifyReply, record: T, version: string) {
  const etag = `"${version}"`;
  reply.header('ETag', etag);
  const ifNoneMatch = request.headers['if-none-match'];
  if (typeof ifNoneMatch === 'string') {
    const tags = ifNoneMatch.split(',').map((t) => t.trim().replace(/^W\//, ''));
    if (tags.includes(etag) || tags.includes('*')) return reply.code(304).send();
  }
  return record;
}
