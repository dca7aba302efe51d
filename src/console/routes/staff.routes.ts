import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import { inviteStaff, type SentInvitation } from '../../resources/staff/invitation.service.ts';
import {
  changeStaffRole,
  getStaffMember,
  listWorkspaceStaff,
  removeStaff,
} from '../../resources/staff/staff-admin.service.ts';
import type { ConsoleOptions } from '../console-options.ts';
import { auditActor, formText, managesStaff, pageContext, queryText, render } from '../render.ts';
import { invitationSentPage, removeStaffPage, staffPage, type StaffPageView } from '../views/staff.view.ts';

type StaffParams = { Params: { id: string } };

/**
 * The new invitation's link reaches the page that shows it as the key secret does
 * (keys.routes.ts): in a cookie for that one page, cleared as it is shown, so a reload shows
 * it no more and cannot post the form again (which would replace the link just given out).
 */
const SENT_COOKIE = 'venue_console_invitation';
const SENT_COOKIE_OPTIONS = {
  path: '/console/staff/invited',
  httpOnly: true,
  sameSite: 'strict',
  secure: 'auto',
} as const;
const SENT_MAX_AGE_S = 60;

/** Owners' staff page: the list, invitations, role changes and removals (docs/console.md "Staff"). */
export async function staffRoutes(app: FastifyInstance, { storage, clock, mail }: ConsoleOptions) {
  const { db } = storage;

  const showStaff = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: Omit<StaffPageView, 'staff' | 'invitations'> = {},
  ) => {
    const list = await listWorkspaceStaff(db, request.staff!.workspaceId, clock());
    return render(reply, status, staffPage(pageContext(request, reply), { ...list, ...extra }));
  };

  /** A refusal a person can act on (a taken email, the last owner) is shown on the page itself. */
  const refusal = (err: unknown): ApiError => {
    if (err instanceof ApiError && (err.code === 'invalid_request' || err.code === 'conflict')) return err;
    throw err;
  };

  app.get('/staff', { preHandler: managesStaff }, async (request, reply) => {
    const done = queryText(request, 'done', 20);
    return showStaff(request, reply, 200, done ? { done } : {});
  });

  app.post('/staff/invite', { preHandler: managesStaff }, async (request, reply) => {
    const email = formText(request, 'email', 320);
    const role = formText(request, 'role', 20);
    try {
      const sent = await inviteStaff(storage, clock, mail, {
        workspaceId: request.staff!.workspaceId,
        email,
        role,
        by: auditActor(request),
      });
      const carried = Buffer.from(JSON.stringify(sent)).toString('base64url');
      reply.setCookie(SENT_COOKIE, carried, { ...SENT_COOKIE_OPTIONS, maxAge: SENT_MAX_AGE_S });
      return reply.redirect('/console/staff/invited', 303);
    } catch (err) {
      const e = refusal(err);
      return showStaff(request, reply, e.status, { invite: { email, role, error: e.detail } });
    }
  });

  app.get('/staff/invited', { preHandler: managesStaff }, async (request, reply) => {
    const carried = request.cookies[SENT_COOKIE];
    if (carried) reply.clearCookie(SENT_COOKIE, SENT_COOKIE_OPTIONS);
    let sent: SentInvitation | null = null;
    try {
      sent = carried ? (JSON.parse(Buffer.from(carried, 'base64url').toString('utf8')) as SentInvitation) : null;
    } catch {
      sent = null;
    }
    return render(reply, 200, invitationSentPage(pageContext(request, reply), sent));
  });

  app.post<StaffParams>('/staff/:id/role', { preHandler: managesStaff }, async (request, reply) => {
    try {
      await changeStaffRole(storage, clock, {
        workspaceId: request.staff!.workspaceId,
        staffId: request.params.id,
        role: formText(request, 'role', 20),
        by: auditActor(request),
      });
    } catch (err) {
      const e = refusal(err);
      return showStaff(request, reply, e.status, { error: e.detail });
    }
    return reply.redirect('/console/staff?done=role', 303);
  });

  app.get<StaffParams>('/staff/:id/remove', { preHandler: managesStaff }, async (request, reply) => {
    const member = await getStaffMember(db, request.staff!.workspaceId, request.params.id);
    return render(reply, 200, removeStaffPage(pageContext(request, reply), member));
  });

  app.post<StaffParams>('/staff/:id/remove', { preHandler: managesStaff }, async (request, reply) => {
    const staff = request.staff!;
    try {
      await removeStaff(storage, clock, {
        workspaceId: staff.workspaceId,
        staffId: request.params.id,
        by: auditActor(request),
      });
    } catch (err) {
      const e = refusal(err);
      const member = await getStaffMember(db, staff.workspaceId, request.params.id);
      return render(reply, e.status, removeStaffPage(pageContext(request, reply), member, e.detail));
    }
    // Someone who removed themselves has no session left: the next page sends them to sign in.
    return reply.redirect('/console/staff?done=removed', 303);
  });
}
