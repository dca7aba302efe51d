import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RETRY_AFTER_SECONDS, unavailableReason } from '../db/unavailable.ts';
import { ApiError } from '../errors.ts';
import { resolveSession, type StaffSession } from '../resources/staff/session.service.ts';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.ts';
import type { ConsoleOptions } from './console-options.ts';
import { keyRoutes } from './routes/key.routes.ts';
import { keysRoutes } from './routes/keys.routes.ts';
import { requestsRoutes } from './routes/requests.routes.ts';
import { webhooksRoutes } from './routes/webhooks.routes.ts';
import { accountRoutes } from './routes/account.routes.ts';
import { auditRoutes } from './routes/audit.routes.ts';
import { invitationRoutes } from './routes/invitation.routes.ts';
import { staffRoutes } from './routes/staff.routes.ts';
import { CSRF_COOKIE, CSRF_COOKIE_OPTIONS, SESSION_COOKIE, csrfUserInfo, pageContext, render } from './render.ts';
import { errorPage } from './views/sign-in.view.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person (console routes only), from the session cookie. */
    staff: StaffSession | null;
  }
}

/**
 * The developer settings (docs/console.md): server-rendered pages under /console, an edge like
 * http/. Helmet, cookies, CSRF and form bodies are registered in this plugin's own scope,
 * so they apply to /console and leave the API's answers as they are.
 */
export async function consolePlugin(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  // Every console route is outside the API's key auth and limits, and outside its OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), access: { kind: 'public' } };
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    // Same-origin pages only; the console is never framed or embedded.
    referrerPolicy: { policy: 'same-origin' },
  });
  await app.register(cookie);
  await app.register(formbody);
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: CSRF_COOKIE_OPTIONS,
    getUserInfo: csrfUserInfo,
    // The token's HMAC key. What keeps a forged token out is the session token each one is bound
    // to (csrfUserInfo), which no attacker sees; the key need not be secret, and one fixed value
    // lets every process check the tokens another process made.
    csrfOpts: { hmacKey: 'venue-console-csrf' },
  });

  app.decorateRequest('staff', null);
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/console/assets/')) return; // the stylesheet needs no database read
    request.staff = await resolveSession(options.storage, options.clock, request.cookies[SESSION_COOKIE]);
  });
  // Every form posts its token; a POST without the right one changes nothing (403).
  app.addHook('preValidation', (request, reply, done) => {
    if (request.method === 'POST') app.csrfProtection(request, reply, done);
    else done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => renderError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    render(
      reply,
      404,
      errorPage(pageContext(request, reply), 'Page not found', 'There is no such page in the console.'),
    ),
  );

  app.get('/assets/console.css', (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('Cache-Control', 'public, max-age=300').send(CONSOLE_CSS),
  );
  app.get('/assets/console.js', (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=300').send(CONSOLE_JS),
  );

  // Not `options` itself: it carries the `/console` prefix, which would apply twice.
  const routeOptions: ConsoleOptions = {
    storage: options.storage,
    clock: options.clock,
    limits: options.limits,
    smtp: options.smtp,
    mail: options.mail,
    webhooks: options.webhooks,
  };
  await app.register(accountRoutes, routeOptions);
  await app.register(keysRoutes, routeOptions);
  await app.register(keyRoutes, routeOptions);
  await app.register(requestsRoutes, routeOptions);
  await app.register(staffRoutes, routeOptions);
  await app.register(invitationRoutes, routeOptions);
  await app.register(auditRoutes, routeOptions);
  await app.register(webhooksRoutes, routeOptions);
}

/** Anything that went wrong, as a page: a person's mistake says what to do; ours says nothing of internals. */
function renderError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const ctx = pageContext(request, reply);
  if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
    return render(
      reply,
      403,
      errorPage(
        ctx,
        'Form expired',
        'This form did not come from this console or has expired. Go back, reload the page and try again.',
      ),
    );
  }
  if (error instanceof ApiError) return render(reply, error.status, errorPage(ctx, 'Not possible', error.detail));
  const reason = unavailableReason(error);
  if (reason) {
    // As the API answers (DECISIONS "HTTP and errors"): the database cannot serve now; retry, not 500.
    request.log.warn({ reason, error: error.message }, 'the database could not serve the console; answered 503');
    reply.header('Retry-After', String(RETRY_AFTER_SECONDS[reason]));
    return render(
      reply,
      503,
      errorPage(ctx, 'Try again shortly', 'The database cannot take this just now. Go back and try again in a moment.'),
    );
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return render(
      reply,
      status,
      errorPage(ctx, 'Not possible', 'The request was not understood. Go back and try again.'),
    );
  }
  request.log.error({ err: error }, 'console request failed');
  return render(
    reply,
    500,
    errorPage(ctx, 'Something went wrong', `Something went wrong on our side (${request.id}).`),
  );
}
