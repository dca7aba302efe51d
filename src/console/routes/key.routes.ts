import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import { keyHistory } from '../../resources/changes/key-history.service.ts';
import { previewUndoPage } from '../../resources/changes/undo-preview.service.ts';
import { latestUndo, requestUndo, undoJobOf } from '../../resources/changes/undo-job.service.ts';
import { personActor } from '../../resources/actor.model.ts';
import { getCustomer } from '../../resources/customers/customer-read.service.ts';
import { keyUsage } from '../../resources/keys/key-usage.service.ts';
import { rollWorkspaceKey, setWorkspaceKeyAllowedIps } from '../../resources/keys/key-access.service.ts';
import { changeWorkspaceKeyStatus, getWorkspaceKey } from '../../resources/keys/key.service.ts';
import { addressList } from '../key-form.ts';
import { redirectWithSecret, takeSecret } from '../secret-cookie.ts';
import type { ConsoleOptions } from '../console-options.ts';
import { auditActor, formText, managesKeys, pageContext, pageNumber, render, skipsPage } from '../render.ts';
import { usageOf } from '../usage.ts';
import { customerPage } from '../views/customer.view.ts';
import { secretPage } from '../views/key-form.view.ts';
import { addressesPage, confirmPage, keyPage, ROLL_OVERLAPS, rollPage } from '../views/key.view.ts';
import { undoPreviewPage } from '../views/undo.view.ts';

type KeyParams = { Params: { id: string } };
const MOVES = ['pause', 'resume', 'revoke'] as const;

/** A key's page, its pause / resume / revoke with a confirmation, its roll and addresses, and the undo of its changes. */
export async function keyRoutes(app: FastifyInstance, { storage, clock, limits }: ConsoleOptions) {
  const { db } = storage;

  app.get<KeyParams>('/keys/:id', { preHandler: managesKeys }, async (request, reply) => {
    const staff = request.staff!;
    const key = await getWorkspaceKey(db, staff.workspaceId, request.params.id);
    const now = clock();
    const [usage, activity, history, undo] = await Promise.all([
      usageOf(limits, key, now),
      keyUsage(db, key, now),
      keyHistory(db, key.id, pageNumber(request)),
      undoJobOf(db, staff.workspaceId, key.id, skipsPage(request)),
    ]);
    const done = (request.query as Record<string, unknown>).done;
    return render(
      reply,
      200,
      keyPage(pageContext(request, reply), {
        key,
        usage,
        activity,
        history,
        undo,
        now,
        ...(typeof done === 'string' ? { done } : {}),
      }),
    );
  });

  for (const move of MOVES) {
    app.get<KeyParams>(`/keys/:id/${move}`, { preHandler: managesKeys }, async (request, reply) => {
      const key = await getWorkspaceKey(db, request.staff!.workspaceId, request.params.id);
      return render(reply, 200, confirmPage(pageContext(request, reply), key, move));
    });

    app.post<KeyParams>(`/keys/:id/${move}`, { preHandler: managesKeys }, async (request, reply) => {
      const staff = request.staff!;
      const reason = move === 'pause' ? formText(request, 'reason', 2000) : '';
      try {
        await changeWorkspaceKeyStatus(
          storage,
          clock,
          staff.workspaceId,
          request.params.id,
          move,
          move === 'pause' ? reason.trim() || `paused by ${staff.email}` : null,
          auditActor(request),
        );
      } catch (err) {
        if (!(err instanceof ApiError) || (err.code !== 'invalid_request' && err.code !== 'conflict')) throw err;
        const key = await getWorkspaceKey(db, staff.workspaceId, request.params.id);
        const state = err.options.errors ? { reason, reasonError: err.detail } : { reason, error: err.detail };
        return render(reply, err.status, confirmPage(pageContext(request, reply), key, move, state));
      }
      return reply.redirect(`/console/keys/${request.params.id}?done=${move}`, 303);
    });
  }

  app.get<KeyParams>('/keys/:id/roll', { preHandler: managesKeys }, async (request, reply) => {
    const key = await getWorkspaceKey(db, request.staff!.workspaceId, request.params.id);
    return render(reply, 200, rollPage(pageContext(request, reply), key, clock()));
  });

  app.post<KeyParams>('/keys/:id/roll', { preHandler: managesKeys }, async (request, reply) => {
    const staff = request.staff!;
    const typed = formText(request, 'overlap', 20);
    const offered = ROLL_OVERLAPS.find((o) => String(o.seconds) === typed);
    try {
      if (!offered) throw new ApiError('invalid_request', 'Choose how long the old secret keeps working.');
      const { key, secret } = await rollWorkspaceKey(
        storage,
        clock,
        staff.workspaceId,
        request.params.id,
        offered.seconds,
        auditActor(request),
      );
      return redirectWithSecret(reply, `/console/keys/${key.id}/rolled`, secret);
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'invalid_request' && err.code !== 'conflict')) throw err;
      const key = await getWorkspaceKey(db, staff.workspaceId, request.params.id);
      const state = { error: err.detail, ...(offered ? { overlap: offered.seconds } : {}) };
      return render(reply, err.status, rollPage(pageContext(request, reply), key, clock(), state));
    }
  });

  app.get<KeyParams>('/keys/:id/rolled', { preHandler: managesKeys }, async (request, reply) => {
    const key = await getWorkspaceKey(db, request.staff!.workspaceId, request.params.id);
    const secret = takeSecret(request, reply, `/console/keys/${key.id}/rolled`);
    const rolled = { previousUntil: key.previousSecretExpiresAt };
    return render(reply, 200, secretPage(pageContext(request, reply), key, secret, rolled));
  });

  app.get<KeyParams>('/keys/:id/addresses', { preHandler: managesKeys }, async (request, reply) => {
    const key = await getWorkspaceKey(db, request.staff!.workspaceId, request.params.id);
    return render(reply, 200, addressesPage(pageContext(request, reply), key));
  });

  app.post<KeyParams>('/keys/:id/addresses', { preHandler: managesKeys }, async (request, reply) => {
    const staff = request.staff!;
    const typed = formText(request, 'allowed_ips', 4000);
    try {
      await setWorkspaceKeyAllowedIps(
        storage,
        clock,
        staff.workspaceId,
        request.params.id,
        addressList(typed),
        auditActor(request),
      );
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'invalid_request' && err.code !== 'conflict')) throw err;
      const key = await getWorkspaceKey(db, staff.workspaceId, request.params.id);
      return render(reply, err.status, addressesPage(pageContext(request, reply), key, { typed, error: err.detail }));
    }
    return reply.redirect(`/console/keys/${request.params.id}?done=addresses`, 303);
  });

  // A customer the key changed, as it is now, in the key's mode (the change log and the undo link here).
  app.get<{ Params: { id: string; customer: string } }>(
    '/keys/:id/customers/:customer',
    { preHandler: managesKeys },
    async (request, reply) => {
      const staff = request.staff!;
      const key = await getWorkspaceKey(db, staff.workspaceId, request.params.id);
      const actor = personActor(
        'staff',
        staff.staffId,
        { workspaceId: staff.workspaceId, livemode: key.mode === 'live' },
        clock,
      );
      let record: Record<string, unknown> | null = null;
      try {
        record = JSON.parse((await getCustomer(db, actor, request.params.customer)).record.text);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'not_found') throw err;
      }
      return render(reply, 200, customerPage(pageContext(request, reply), key, request.params.customer, record));
    },
  );

  app.get<KeyParams>('/keys/:id/undo', { preHandler: managesKeys }, async (request, reply) => {
    const staff = request.staff!;
    const key = await getWorkspaceKey(db, staff.workspaceId, request.params.id);
    const [preview, job] = await Promise.all([
      previewUndoPage(db, key, { kind: 'staff', id: staff.staffId }, clock, pageNumber(request)),
      latestUndo(db, staff.workspaceId, key.id),
    ]);
    return render(reply, 200, undoPreviewPage(pageContext(request, reply), key, preview, { job }));
  });

  app.post<KeyParams>('/keys/:id/undo', { preHandler: managesKeys }, async (request, reply) => {
    const staff = request.staff!;
    const key = await getWorkspaceKey(db, staff.workspaceId, request.params.id);
    // A job a server process runs in batches, recorded as the signed-in person's changes
    // through the same write pipeline as the CLI's undo; its progress is on the key's page.
    try {
      await requestUndo(storage, key, { kind: 'staff', id: staff.staffId }, auditActor(request), clock);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'conflict') throw err;
      const preview = await previewUndoPage(db, key, { kind: 'staff', id: staff.staffId }, clock, 1);
      const job = await latestUndo(db, staff.workspaceId, key.id);
      return render(reply, 409, undoPreviewPage(pageContext(request, reply), key, preview, { job, error: err.detail }));
    }
    return reply.redirect(`/console/keys/${key.id}#undo`, 303);
  });
}
