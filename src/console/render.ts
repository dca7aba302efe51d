import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditActor } from '../resources/audit/audit.model.ts';
import { canManageStaff } from '../resources/staff/staff-admin.service.ts';
import { canManageKeys } from '../resources/staff/staff.service.ts';
import type { StaffRole } from '../resources/workspaces/workspace.service.ts';
import type { SafeHtml } from './html.ts';
import type { PageContext } from './views/layout.ts';
import { errorPage } from './views/sign-in.view.ts';

/** The session cookie: HttpOnly, SameSite=Lax, Secure when the request came over HTTPS. */
export const SESSION_COOKIE = 'venue_console_session';
export const SESSION_COOKIE_OPTIONS = { path: '/console', httpOnly: true, sameSite: 'lax', secure: 'auto' } as const;

/** The CSRF secret's cookie; the plugin makes the secret, sign-in makes a new one. */
export const CSRF_COOKIE = 'venue_console_csrf';
export const CSRF_COOKIE_OPTIONS = SESSION_COOKIE_OPTIONS;

/**
 * What a form's CSRF token is bound to: the session's own cookie token, so a token works only
 * in the session that received it, and a secret cookie tossed in by a sibling domain is no use
 * without the session's token, which an attacker never sees. Signed out, a fixed value.
 */
export function csrfUserInfo(request: FastifyRequest): string {
  const token = request.staff ? request.cookies[SESSION_COOKIE] : undefined;
  return token ? `session:${token}` : 'signed-out';
}

/** A new CSRF secret: every token made before it (the signed-out sign-in form's too) stops working. */
export function rotateCsrfSecret(reply: FastifyReply): void {
  reply.setCookie(CSRF_COOKIE, randomBytes(18).toString('base64url'), CSRF_COOKIE_OPTIONS);
}

export function pageContext(request: FastifyRequest, reply: FastifyReply): PageContext {
  let csrf = '';
  try {
    csrf = reply.generateCsrf({ userInfo: csrfUserInfo(request) });
  } catch {
    // Only when the request failed before its cookies were read: that page has no form to protect.
  }
  return { staff: request.staff ?? null, csrf };
}

export function render(reply: FastifyReply, status: number, page: SafeHtml): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page.value);
}

/** A form body as fields (the form parser gives an object; anything else has no fields). */
export function formFields(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

export function formText(request: FastifyRequest, name: string, max = 1000): string {
  const v = formFields(request)[name];
  return typeof v === 'string' ? v.slice(0, max) : '';
}

/** preHandler: pages for signed-in people only; the others are sent to sign in. */
export async function signedIn(request: FastifyRequest, reply: FastifyReply) {
  if (!request.staff) return reply.redirect('/console/sign-in', 303);
}

/** A preHandler for pages some roles may not see: signed out goes to sign in, a role not allowed gets 403. */
function roleGuard(allowed: (role: StaffRole) => boolean, why: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.staff) return reply.redirect('/console/sign-in', 303);
    if (!allowed(request.staff.role)) {
      return render(reply, 403, errorPage(pageContext(request, reply), 'Not allowed', why));
    }
  };
}

/** preHandler: key pages are for owners and key managers; `staff` gets 403 (DECISIONS "Staff roles"). */
export const managesKeys = roleGuard(
  canManageKeys,
  'Only owners and key managers can see and change API keys. Ask an owner of the workspace for that role.',
);

/** preHandler: staff pages are for owners; key managers and `staff` get 403 (DECISIONS "Staff roles"). */
export const managesStaff = roleGuard(
  canManageStaff,
  'Only owners of the workspace can see and change its staff. Ask an owner for that role.',
);

/** The signed-in person, as the audit log names them: their id, email and the request's address. */
export function auditActor(request: FastifyRequest): AuditActor & { kind: 'staff' } {
  const staff = request.staff!;
  return { kind: 'staff', staffId: staff.staffId, email: staff.email, address: request.ip };
}

/** A query string parameter as text ('' when absent or repeated). */
export function queryText(request: FastifyRequest, name: string, max = 320): string {
  const v = (request.query as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.slice(0, max) : '';
}

/** `?page=` (or another parameter) as a page number; anything else is the first page. */
export function pageNumber(request: FastifyRequest, name = 'page'): number {
  const raw = (request.query as Record<string, unknown> | undefined)?.[name];
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  return Math.max(1, n);
}

/** The page of an undo job's skipped list on the key's page (`?skips=N`). */
export const skipsPage = (request: FastifyRequest): number => pageNumber(request, 'skips');
