import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import {
  createEndpoint,
  deleteEndpoint,
  endpointDeletion,
  endpointDeliveries,
  endpointWithHealth,
  resendDelivery,
  resendFailedSince,
  rotateSecret,
  sendTestEvent,
  setEndpointStatus,
  workspaceEndpoints,
} from '../../resources/webhooks/webhook.service.ts';
import type { ConsoleOptions } from '../console-options.ts';
import { auditActor, formFields, formText, managesKeys, pageContext, queryText, render } from '../render.ts';
import { parseUtcInput, toUtcInput } from '../utc-input.ts';
import {
  deleteWebhookPage,
  EMPTY_WEBHOOK_FORM,
  type ResendSinceForm,
  webhookPage,
  webhooksPage,
  type WebhookFormValues,
} from '../views/webhooks.view.ts';

/**
 * The Webhooks pages, for owners and key managers as the keys pages are. A new or rotated
 * secret reaches its page in a cookie for that page alone, cleared as it is shown (as a new
 * key's secret does, keys.routes.ts): the server keeps it only to sign with.
 */
const SECRET_COOKIE = 'venue_console_webhook_secret';
const secretCookie = (id: string) =>
  ({ path: `/console/webhooks/${id}`, httpOnly: true, sameSite: 'strict', secure: 'auto', maxAge: 60 }) as const;

type Params = { Params: { id: string } };

export async function webhooksRoutes(app: FastifyInstance, { storage, clock, webhooks }: ConsoleOptions) {
  const { db } = storage;
  const ws = (request: FastifyRequest) => request.staff!.workspaceId;

  app.get('/webhooks', { preHandler: managesKeys }, async (request, reply) => {
    const endpoints = await workspaceEndpoints(db, ws(request));
    const done = (request.query as Record<string, string | undefined>).done;
    return render(
      reply,
      200,
      webhooksPage(pageContext(request, reply), {
        endpoints,
        values: EMPTY_WEBHOOK_FORM,
        ...(done === 'deleted' ? { message: 'The endpoint was deleted; it gets no more events.' } : {}),
      }),
    );
  });

  app.post('/webhooks', { preHandler: managesKeys }, async (request, reply) => {
    const values: WebhookFormValues = {
      // Whole, not cut to the limit: the service refuses a URL over it, as it does the CLI's.
      url: formText(request, 'url', Number.POSITIVE_INFINITY).trim(),
      mode: formText(request, 'mode') === 'live' ? 'live' : 'test',
      events: formText(request, 'events').trim() || '*',
      contacts_masked: formFields(request).contacts_masked === 'on',
    };
    try {
      const { endpoint, secret } = await createEndpoint(storage, clock, webhooks, {
        workspaceId: ws(request),
        url: values.url,
        mode: values.mode,
        events: values.events.split(','),
        contactsMasked: values.contacts_masked,
        createdBy: request.staff!.email,
        by: auditActor(request),
      });
      reply.setCookie(SECRET_COOKIE, secret, secretCookie(endpoint.id));
      return reply.redirect(`/console/webhooks/${endpoint.id}`, 303);
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'invalid_request' && err.code !== 'conflict')) throw err;
      const endpoints = await workspaceEndpoints(db, ws(request));
      return render(
        reply,
        err.status,
        webhooksPage(pageContext(request, reply), { endpoints, values, error: err.detail }),
      );
    }
  });

  /** The endpoint's page; the resend form starts from when its failures began, when they have. */
  async function endpointPage(
    request: FastifyRequest<Params>,
    reply: FastifyReply,
    status: number,
    extra: { resend?: ResendSinceForm; message?: string },
  ) {
    const { endpoint, health } = await endpointWithHealth(db, ws(request), request.params.id);
    const deliveries = await endpointDeliveries(db, ws(request), endpoint.id);
    const secret = request.cookies[SECRET_COOKIE] ?? null;
    if (secret) reply.clearCookie(SECRET_COOKIE, secretCookie(endpoint.id));
    const resend = extra.resend ?? { since: health.failingSince === null ? '' : toUtcInput(health.failingSince) };
    const page = webhookPage(pageContext(request, reply), { endpoint, health, deliveries, secret, resend, ...extra });
    return render(reply, status, page);
  }

  app.get<Params>('/webhooks/:id', { preHandler: managesKeys }, async (request, reply) => {
    const message = doneMessage(queryText(request, 'done'), queryText(request, 'count'));
    return endpointPage(request, reply, 200, message ? { message } : {});
  });

  const back = (id: string, done: string) => `/console/webhooks/${id}?done=${done}`;

  app.post<Params>('/webhooks/:id/test', { preHandler: managesKeys }, async (request, reply) => {
    await sendTestEvent(storage, clock, ws(request), request.params.id);
    return reply.redirect(back(request.params.id, 'test'), 303);
  });
  for (const move of ['enable', 'disable'] as const) {
    app.post<Params>(`/webhooks/:id/${move}`, { preHandler: managesKeys }, async (request, reply) => {
      await setEndpointStatus(
        storage,
        clock,
        ws(request),
        request.params.id,
        move === 'enable' ? 'enabled' : 'disabled',
        auditActor(request),
      );
      return reply.redirect(back(request.params.id, move), 303);
    });
  }
  app.post<Params>('/webhooks/:id/rotate', { preHandler: managesKeys }, async (request, reply) => {
    const { secret } = await rotateSecret(storage, clock, ws(request), request.params.id, auditActor(request));
    reply.setCookie(SECRET_COOKIE, secret, secretCookie(request.params.id));
    return reply.redirect(back(request.params.id, 'rotate'), 303);
  });
  // Deleting is confirmed on a page of its own that says what goes with the endpoint, as a key's revoke is.
  app.get<Params>('/webhooks/:id/delete', { preHandler: managesKeys }, async (request, reply) => {
    const deletion = await endpointDeletion(db, ws(request), request.params.id);
    return render(reply, 200, deleteWebhookPage(pageContext(request, reply), deletion));
  });
  app.post<Params>('/webhooks/:id/delete', { preHandler: managesKeys }, async (request, reply) => {
    await deleteEndpoint(storage, ws(request), request.params.id, auditActor(request), clock);
    return reply.redirect('/console/webhooks?done=deleted', 303);
  });
  app.post<Params>('/webhooks/:id/resend-failed', { preHandler: managesKeys }, async (request, reply) => {
    const raw = formText(request, 'since', 40);
    const since = parseUtcInput(raw);
    if (since === null) {
      const error = 'Give a date and time (UTC), for example 2027-01-31T09:00; nothing was resent.';
      return endpointPage(request, reply, 400, { resend: { since: raw, error } });
    }
    const { resent } = await resendFailedSince(
      storage,
      clock,
      ws(request),
      request.params.id,
      since,
      auditActor(request),
    );
    return reply.redirect(`${back(request.params.id, 'resent')}&count=${resent}`, 303);
  });
  app.post<{ Params: { id: string; event: string } }>(
    '/webhooks/:id/deliveries/:event/resend',
    { preHandler: managesKeys },
    async (request, reply) => {
      await resendDelivery(storage, clock, ws(request), request.params.id, request.params.event);
      return reply.redirect(back(request.params.id, 'resend'), 303);
    },
  );
}

const DONE: Record<string, string> = {
  test: 'A webhook.test event is on its way.',
  enable: 'The endpoint is enabled.',
  disable: 'The endpoint is disabled; its deliveries wait until it is enabled again.',
  rotate: 'The secret was rotated; the old one keeps signing beside it for 24 hours.',
  resend: 'The delivery will be attempted again.',
};

/** The notice a redirect back to the endpoint's page asks for; after "Resend failed deliveries since", how many. */
function doneMessage(done: string, count: string): string | undefined {
  if (done !== 'resent') return Object.hasOwn(DONE, done) ? DONE[done] : undefined;
  if (!/^\d{1,9}$/.test(count)) return undefined;
  const n = Number(count);
  if (n === 0) return 'No delivery made since then had failed; nothing was resent.';
  return `${n.toLocaleString('en-US')} failed ${n === 1 ? 'delivery' : 'deliveries'} will be attempted again.`;
}
