import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import { listAudit, type AuditFilter } from '../../resources/audit/audit.service.ts';
import type { ConsoleOptions } from '../console-options.ts';
import { managesKeys, pageContext, queryText, render } from '../render.ts';
import { auditPage } from '../views/audit.view.ts';

/** The workspace's audit log for owners and key managers (docs/console.md "Audit log"). */
export async function auditRoutes(app: FastifyInstance, { storage }: ConsoleOptions) {
  app.get('/audit', { preHandler: managesKeys }, async (request, reply) => {
    const person = queryText(request, 'person').trim().toLowerCase();
    const action = queryText(request, 'action', 64);
    const cursor = queryText(request, 'cursor', 512);
    const filter: AuditFilter = { ...(person ? { actor: person } : {}), ...(action ? { action } : {}) };
    const workspaceId = request.staff!.workspaceId;
    try {
      const found = await listAudit(storage.db, workspaceId, filter, cursor || null);
      return render(reply, 200, auditPage(pageContext(request, reply), { ...found, filter, paged: cursor !== '' }));
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'invalid_request') throw err;
      const first = await listAudit(storage.db, workspaceId, {}, null);
      return render(
        reply,
        400,
        auditPage(pageContext(request, reply), { ...first, filter: {}, paged: false, error: err.detail }),
      );
    }
  });
}
