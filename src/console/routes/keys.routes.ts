import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import { listOutbox } from '../../jobs/outbox.repo.ts';
import { createKey, getWorkspaceKey, listWorkspaceKeys } from '../../resources/keys/key.service.ts';
import { getWorkspace } from '../../resources/workspaces/workspace.service.ts';
import type { ConsoleOptions } from '../console-options.ts';
import { EMPTY_KEY_FORM, readKeyForm, type FormErrors, type KeyFormValues } from '../key-form.ts';
import { auditActor, managesKeys, pageContext, pageNumber, render } from '../render.ts';
import { keyFormPage, secretPage } from '../views/key-form.view.ts';
import { keysPage } from '../views/keys.view.ts';
import { redirectWithSecret, takeSecret } from '../secret-cookie.ts';
import { notificationsPage } from '../views/notifications.view.ts';

const NOTIFICATIONS_PAGE_SIZE = 20;

export async function keysRoutes(app: FastifyInstance, { storage, clock, smtp }: ConsoleOptions) {
  const { db } = storage;

  app.get('/keys', { preHandler: managesKeys }, async (request, reply) => {
    const list = await listWorkspaceKeys(db, request.staff!.workspaceId);
    return render(reply, 200, keysPage(pageContext(request, reply), { ...list, now: clock() }));
  });

  const showForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    values: KeyFormValues,
    errors: FormErrors,
  ) => {
    const ws = await getWorkspace(db, request.staff!.workspaceId);
    return render(
      reply,
      status,
      keyFormPage(pageContext(request, reply), {
        values,
        errors,
        workspaceRequestsPerMinute: ws.limits.requests_per_minute,
      }),
    );
  };

  app.get('/keys/new', { preHandler: managesKeys }, async (request, reply) =>
    showForm(request, reply, 200, EMPTY_KEY_FORM, {}),
  );

  app.post('/keys', { preHandler: managesKeys }, async (request, reply) => {
    const staff = request.staff!;
    const ws = await getWorkspace(db, staff.workspaceId);
    const form = readKeyForm(request.body, ws.limits.requests_per_minute);
    if (!form.input) return showForm(request, reply, 400, form.values, form.errors);
    try {
      // The signed-in person made the key and agreed to the three terms, now (SPEC "Authentication" 2).
      const { key, secret } = await createKey(storage, clock, {
        ...form.input,
        workspaceId: staff.workspaceId,
        createdBy: staff.email,
        agreedBy: staff.email,
        by: auditActor(request),
      });
      return redirectWithSecret(reply, `/console/keys/${key.id}/created`, secret);
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'invalid_request' && err.code !== 'conflict')) throw err;
      const errors: FormErrors = {};
      for (const e of err.options.errors ?? []) errors[e.field] = e.message;
      if (Object.keys(errors).length === 0) errors.name = err.detail;
      return showForm(request, reply, err.status, form.values, errors);
    }
  });

  app.get<{ Params: { id: string } }>('/keys/:id/created', { preHandler: managesKeys }, async (request, reply) => {
    const key = await getWorkspaceKey(db, request.staff!.workspaceId, request.params.id);
    const secret = takeSecret(request, reply, `/console/keys/${key.id}/created`);
    return render(reply, 200, secretPage(pageContext(request, reply), key, secret));
  });

  app.get('/notifications', { preHandler: managesKeys }, async (request, reply) => {
    const page = pageNumber(request);
    const { emails, total } = await listOutbox(
      db,
      request.staff!.workspaceId,
      { offset: (page - 1) * NOTIFICATIONS_PAGE_SIZE, limit: NOTIFICATIONS_PAGE_SIZE },
      { owner: request.staff!.role === 'owner' },
    );
    const pages = Math.max(1, Math.ceil(total / NOTIFICATIONS_PAGE_SIZE));
    return render(reply, 200, notificationsPage(pageContext(request, reply), { emails, page, pages, total, smtp }));
  });
}
