import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import { getWorkspaceKey, listWorkspaceKeys } from '../../resources/keys/key.service.ts';
import { getRequest, listKeyRequests } from '../../resources/request-log/request-log.service.ts';
import type { ConsoleOptions } from '../console-options.ts';
import { managesKeys, pageContext, render } from '../render.ts';
import { keysPage } from '../views/keys.view.ts';
import { keyRequestsPage, requestPage } from '../views/requests.view.ts';

const PAGE = 50;

/** The request or key, or null when there is none to show; anything else (the database down) is thrown. */
async function unlessNotFound<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') return null;
    throw err;
  }
}
const text = (query: unknown, name: string, max = 64) => {
  const v = (query as Record<string, unknown>)[name];
  return typeof v === 'string' ? v.trim().slice(0, max) : '';
};

/** The request log in the console: a key's requests, one request with its bodies, and the search by id. */
export async function requestsRoutes(app: FastifyInstance, { storage, clock }: ConsoleOptions) {
  const { db } = storage;

  app.get<{ Params: { id: string } }>('/keys/:id/requests', { preHandler: managesKeys }, async (request, reply) => {
    const workspaceId = request.staff!.workspaceId;
    const key = await getWorkspaceKey(db, workspaceId, request.params.id);
    const filters = {
      status: text(request.query, 'status'),
      method: text(request.query, 'method'),
      id: text(request.query, 'id'),
    };
    const ctx = pageContext(request, reply);
    if (filters.id) {
      const found = await unlessNotFound(getRequest(db, filters.id, workspaceId));
      if (found?.key === key.id) return reply.redirect(`/console/requests/${found.id}`, 303);
      const error = `No request ${filters.id} of this key in the log.`;
      return render(reply, 404, keyRequestsPage(ctx, { key, rows: [], filters, older: null, error }));
    }
    const before = text(request.query, 'before');
    try {
      const rows = await listKeyRequests(
        db,
        key.id,
        {
          limit: PAGE + 1,
          ...(filters.status ? { status: filters.status } : {}),
          ...(filters.method ? { method: filters.method } : {}),
          ...(before ? { before } : {}),
        },
        workspaceId,
      );
      const older = rows.length > PAGE ? rows[PAGE - 1]!.id : null;
      return render(reply, 200, keyRequestsPage(ctx, { key, rows: rows.slice(0, PAGE), filters, older }));
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'invalid_request') throw err;
      return render(reply, 400, keyRequestsPage(ctx, { key, rows: [], filters, older: null, error: err.detail }));
    }
  });

  // The keys page's search box: any request of the workspace, by the id its answer carried.
  app.get('/requests', { preHandler: managesKeys }, async (request, reply) => {
    const workspaceId = request.staff!.workspaceId;
    const typed = text(request.query, 'id');
    const found = typed ? await unlessNotFound(getRequest(db, typed, workspaceId)) : null;
    if (found) return reply.redirect(`/console/requests/${found.id}`, 303);
    const list = await listWorkspaceKeys(db, workspaceId);
    const error = typed ? `No request ${typed} in this workspace's log.` : 'Give a request id (req_…).';
    return render(
      reply,
      typed ? 404 : 400,
      keysPage(pageContext(request, reply), { ...list, now: clock(), search: { typed, error } }),
    );
  });

  app.get<{ Params: { id: string } }>('/requests/:id', { preHandler: managesKeys }, async (request, reply) => {
    const workspaceId = request.staff!.workspaceId;
    const found = await getRequest(db, request.params.id, workspaceId);
    const key = await unlessNotFound(getWorkspaceKey(db, workspaceId, found.key));
    return render(reply, 200, requestPage(pageContext(request, reply), found, key?.name ?? null));
  });
}
