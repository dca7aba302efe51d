import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import { endSession, startSession } from '../../resources/staff/session.service.ts';
import { SignInGate } from '../../resources/staff/sign-in-gate.ts';
import { signIn } from '../../resources/staff/sign-in.service.ts';
import { canManageKeys, changeOwnPassword } from '../../resources/staff/staff.service.ts';
import type { ConsoleOptions } from '../console-options.ts';
import {
  auditActor,
  SESSION_COOKIE,
  SESSION_COOKIE_OPTIONS,
  formText,
  pageContext,
  render,
  rotateCsrfSecret,
  signedIn,
} from '../render.ts';
import { homePage, passwordPage, signInPage } from '../views/sign-in.view.ts';

/** Sign-in, sign-out, the landing page and one's own password. */
export async function accountRoutes(app: FastifyInstance, { storage, clock }: ConsoleOptions) {
  // One per process, as the app is: the sign-ins it checks at once.
  const gate = new SignInGate();

  app.get('/', { preHandler: signedIn }, async (request, reply) => {
    if (canManageKeys(request.staff!.role)) return reply.redirect('/console/keys', 303);
    return render(reply, 200, homePage(pageContext(request, reply)));
  });

  app.get('/sign-in', async (request, reply) => {
    if (request.staff) return reply.redirect('/console', 303);
    const changed = (request.query as Record<string, unknown>).changed === '1';
    return render(
      reply,
      200,
      signInPage(pageContext(request, reply), changed ? { info: 'Your password was changed. Sign in again.' } : {}),
    );
  });

  app.post('/sign-in', async (request, reply) => {
    const email = formText(request, 'email', 320);
    const result = await signIn(storage, clock, gate, {
      email,
      password: formText(request, 'password', 1000),
      ip: request.ip,
    });
    const ctx = pageContext(request, reply);
    if (result.kind === 'locked') {
      const minutes = Math.max(1, Math.ceil((result.until - clock()) / 60_000));
      return render(
        reply.header('Retry-After', String(Math.ceil((result.until - clock()) / 1000))),
        429,
        signInPage(ctx, {
          email,
          error: `Too many failed sign-ins. Signing in is blocked for ${minutes} more minute(s), even with the right password.`,
        }),
      );
    }
    if (result.kind === 'refused') {
      return render(reply, 401, signInPage(ctx, { email, error: 'The email or password is not right.' }));
    }
    const token = await startSession(storage, clock, result.staff.id);
    reply.setCookie(SESSION_COOKIE, token, SESSION_COOKIE_OPTIONS);
    rotateCsrfSecret(reply);
    return reply.redirect('/console', 303);
  });

  app.post('/sign-out', async (request, reply) => {
    await endSession(storage, request.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
    rotateCsrfSecret(reply);
    return reply.redirect('/console/sign-in', 303);
  });

  app.get('/password', { preHandler: signedIn }, async (request, reply) =>
    render(reply, 200, passwordPage(pageContext(request, reply))),
  );

  app.post('/password', { preHandler: signedIn }, async (request, reply) => {
    const staff = request.staff!;
    const current = formText(request, 'current_password');
    const next = formText(request, 'new_password');
    const errors: Record<string, string> = {};
    if (!current) errors.current_password = 'Enter your current password.';
    if (next !== formText(request, 'confirm_password')) errors.confirm_password = 'The two new passwords differ.';
    if (next.length < 8) errors.new_password = 'Use 8 characters or more.';
    if (next.length > 200) errors.new_password = 'Use 200 characters or fewer.';
    if (Object.keys(errors).length === 0) {
      try {
        await changeOwnPassword(storage, clock, {
          workspaceId: staff.workspaceId,
          email: staff.email,
          current,
          next,
          by: auditActor(request),
        });
        // Every session of theirs ended, this one too: they sign in again with the new password.
        reply.clearCookie(SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
        return reply.redirect('/console/sign-in?changed=1', 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'invalid_request') throw err;
        for (const e of err.options.errors ?? []) errors[e.field] = `The current password ${e.message}.`;
        if (!err.options.errors) errors.new_password = err.detail;
      }
    }
    return render(reply, 400, passwordPage(pageContext(request, reply), { errors }));
  });
}
