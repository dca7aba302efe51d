import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import { inviteStaff } from '../../resources/staff/invitation.service.ts';
import {
  changeStaffRole,
  getStaffMember,
  listWorkspaceStaff,
  removeStaff,
} from '../../resources/staff/staff-admin.service.ts';
import type { ConsoleOptions } from '../console.plugin.ts';
import { auditActor, formText, managesStaff, pageContext, queryText, render } from '../render.ts';
import { invitationSentPage, removeStaffPage, staffPage, type StaffPageView } from '../views/staff.view.ts';

type StaffParams = { Params: { id: string } };

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
      return render(reply, 200, invitationSentPage(pageContext(request, reply), sent));
    } catch (err) {
      const e = refusal(err);
      return showStaff(request, reply, e.status, { invite: { email, role, error: e.detail } });
    }
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
