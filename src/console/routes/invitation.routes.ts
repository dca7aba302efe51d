import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import { acceptInvitation, openInvitation } from '../../resources/staff/invitation.service.ts';
import { startSession } from '../../resources/staff/session.service.ts';
import type { ConsoleOptions } from '../console-options.ts';
import { SESSION_COOKIE, SESSION_COOKIE_OPTIONS, formText, pageContext, render, rotateCsrfSecret } from '../render.ts';
import { acceptInvitationPage } from '../views/invitation.view.ts';

type InvitationParams = { Params: { token: string } };

/** An invitation link: open to anyone who holds it, signed in or not (docs/console.md "Staff"). */
export async function invitationRoutes(app: FastifyInstance, { storage, clock }: ConsoleOptions) {
  app.get<InvitationParams>('/invitations/:token', async (request, reply) => {
    const invitation = await openInvitation(storage.db, clock, request.params.token);
    return render(reply, 200, acceptInvitationPage(pageContext(request, reply), request.params.token, invitation));
  });

  app.post<InvitationParams>('/invitations/:token', async (request, reply) => {
    const { token } = request.params;
    const name = formText(request, 'name', 200);
    const password = formText(request, 'new_password');
    const errors: Record<string, string> = {};
    if (!name.trim()) errors.name = 'Enter your name.';
    if (password !== formText(request, 'confirm_password')) errors.confirm_password = 'The two passwords differ.';
    if (Object.keys(errors).length === 0) {
      try {
        const joined = await acceptInvitation(storage, clock, { token, name, password, address: request.ip });
        const session = await startSession(storage, clock, joined.staffId);
        reply.setCookie(SESSION_COOKIE, session, SESSION_COOKIE_OPTIONS);
        rotateCsrfSecret(reply);
        return reply.redirect('/console', 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'invalid_request') throw err;
        for (const e of err.options.errors ?? []) errors[e.field] = `Your ${e.field} ${e.message}.`;
        if (!err.options.errors) errors.new_password = `The password: ${err.detail}.`;
      }
    }
    const invitation = await openInvitation(storage.db, clock, token);
    return render(reply, 400, acceptInvitationPage(pageContext(request, reply), token, invitation, { name, errors }));
  });
}
