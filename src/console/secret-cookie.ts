import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A new key secret (a create or a roll) travels to the page that shows it in a cookie for
 * that one page, cleared as it is shown: the server keeps no copy (SPEC "Authentication" 4),
 * a reload shows it no more, and a reload cannot post the form again. It lives a minute at
 * most, so a redirect that never arrives does not leave the secret in the browser.
 */
const COOKIE = 'venue_console_new_secret';
const MAX_AGE_S = 60;
const options = (path: string) => ({ path, httpOnly: true, sameSite: 'strict', secure: 'auto' }) as const;

/** Sends the secret along with the redirect to `path`, the page that shows it. */
export function redirectWithSecret(reply: FastifyReply, path: string, secret: string) {
  reply.setCookie(COOKIE, secret, { ...options(path), maxAge: MAX_AGE_S });
  return reply.redirect(path, 303);
}

/** The secret sent to this page, once; null on a reload. */
export function takeSecret(request: FastifyRequest, reply: FastifyReply, path: string): string | null {
  const secret = request.cookies[COOKIE] ?? null;
  if (secret) reply.clearCookie(COOKIE, options(path));
  return secret;
}
