import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import {
  createEndpoint,
  deleteEndpoint,
  endpointDeletion,
  endpointDeliveries,
  getEndpoint,
  resendDelivery,
  rotateSecret,
  sendTestEvent,
  setEndpointStatus,
  workspaceEndpoints,
} from '../../resources/webhooks/webhook.service.ts';
import type { ConsoleOptions } from '../console-options.ts';
import { auditActor, formFields, formText, managesKeys, pageContext, render } from '../render.ts';
import {
  deleteWebhookPage,
  EMPTY_WEBHOOK_FORM,
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

  app.get<Params>('/webhooks/:id', { preHandler: managesKeys }, async (request, reply) => {
    const endpoint = await getEndpoint(db, ws(request), request.params.id);
    const deliveries = await endpointDeliveries(db, ws(request), endpoint.id);
    const secret = request.cookies[SECRET_COOKIE] ?? null;
    if (secret) reply.clearCookie(SECRET_COOKIE, secretCookie(endpoint.id));
    const message = (request.query as Record<string, string | undefined>).done;
    return render(
      reply,
      200,
      webhookPage(pageContext(request, reply), {
        endpoint,
        deliveries,
        secret,
        ...(message ? { message: DONE[message] ?? '' } : {}),
      }),
    );
  });

  const back = (id: string, done: keyof typeof DONE) => `/console/webhooks/${id}?done=${done}`;

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
