import type { Queryable, Tx } from '../../db/schema.ts';
import { invalid } from '../../errors.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import { newId } from '../../lib/ids.ts';
import {
  AUDIT_ACTIONS,
  MAX_DETAIL_CHARS,
  SOURCE_OF,
  actorLabel,
  type AuditEntry,
  type AuditRecord,
} from './audit.model.ts';
import { auditPage, insertAuditRow } from './audit.repo.ts';

/**
 * Writes one audit entry (docs/console.md "Audit log") in `tx`, the transaction of the
 * action it describes: the entry and the action commit together or not at all, so the log
 * never shows an action that did not happen nor misses one that did. The one exception is a
 * failed sign-in, which has no action to share a transaction with and is written in its own.
 *
 * Every service that changes keys, staff, undo or webhooks calls this with the actor its
 * caller names (the console's signed-in person and address, the CLI's `--by`); a webhook
 * endpoint's create, disable, enable and delete use the reserved `webhook.*` actions with
 * the endpoint's id as target.
 */
export async function recordAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  const by = entry.by;
  let detail = JSON.stringify(entry.detail ?? {});
  if (detail.length > MAX_DETAIL_CHARS) detail = JSON.stringify({ truncated: detail.slice(0, MAX_DETAIL_CHARS) });
  await insertAuditRow(tx, {
    id: newId('audit'),
    workspace_id: entry.workspaceId,
    at: entry.at,
    actor_kind: by.kind,
    actor_id: by.kind === 'staff' ? by.staffId : null,
    // Lower case, so the page's person filter finds an email or a name however it is typed.
    actor: actorLabel(by).toLowerCase().slice(0, 320),
    source: SOURCE_OF[by.kind],
    address: by.kind === 'staff' ? by.address : null,
    action: entry.action,
    target: entry.target,
    detail,
  });
}

const AUDIT_PAGE_SIZE = 50;

export interface AuditFilter {
  /** An email or an operator's name, exactly as the log shows it. */
  actor?: string;
  action?: string;
}

export interface AuditPage {
  entries: AuditRecord[];
  /** The cursor of the next (older) page, or null on the last. */
  next: string | null;
}

/** One page of a workspace's audit log, newest first, filtered by person and action. */
export async function listAudit(
  db: Queryable,
  workspaceId: string,
  filter: AuditFilter,
  cursor: string | null,
  limit = AUDIT_PAGE_SIZE,
): Promise<AuditPage> {
  if (filter.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(filter.action))
    throw invalid(`no such action "${filter.action.slice(0, 64)}"`);
  const bound = { actor: filter.actor ?? null, action: filter.action ?? null };
  let after: { at: number; id: string } | undefined;
  if (cursor) {
    const pos = decodeCursor('audit', bound, cursor);
    if (!pos) throw invalid('that page of the audit log no longer matches its filters; start from the first page');
    after = { at: pos.createdAt, id: pos.id };
  }
  const rows = await auditPage(db, {
    workspaceId,
    ...(filter.actor !== undefined ? { actor: filter.actor } : {}),
    ...(filter.action !== undefined ? { action: filter.action } : {}),
    ...(after ? { after } : {}),
    limit: limit + 1,
  });
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    entries: page.map((r) => ({
      id: r.id,
      at: Number(r.at),
      actorKind: r.actor_kind,
      actor: r.actor,
      source: r.source,
      address: r.address,
      action: r.action,
      target: r.target,
      detail: JSON.parse(r.detail) as Record<string, unknown>,
    })),
    next: more && last ? encodeCursor('audit', bound, { createdAt: Number(last.at), id: last.id }) : null,
  };
}
