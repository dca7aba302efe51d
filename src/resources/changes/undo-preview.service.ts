import type { Queryable } from '../../db/schema.ts';
import type { Clock } from '../../lib/time.ts';
import { personActor } from '../actor.model.ts';
import type { KeyRecord } from '../keys/key.repo.ts';
import { countPending, pendingPage } from './undo.repo.ts';
import type { Skip } from './undo-plan.model.ts';
import { planFor, revertLines, type RevertLine } from './undo.service.ts';

const PREVIEW_PAGE_SIZE = 20;

/** One page of what an undo of a key would do now, newest change first. */
export interface UndoPreviewPage {
  reverts: RevertLine[];
  skipped: Skip[];
  /** The key's changes not yet undone (all pages). */
  total: number;
  /** The changes this page looks at. */
  changes: number;
  page: number;
  pages: number;
}

/**
 * The undo preview a page at a time (docs/console.md "Undo"): it plans only the customers the
 * page's changes touched, each from its own change log as the undo would, and keeps what
 * concerns the page's changes; the totals are a count, so no page reads the key's whole log.
 */
export async function previewUndoPage(
  db: Queryable,
  key: KeyRecord,
  by: { kind: 'staff' | 'operator'; id: string },
  clock: Clock,
  page: number,
): Promise<UndoPreviewPage> {
  const actor = personActor(by.kind, by.id, { workspaceId: key.workspaceId, livemode: key.mode === 'live' }, clock);
  const total = await countPending(db, key.id);
  const pages = Math.max(1, Math.ceil(total / PREVIEW_PAGE_SIZE));
  const wanted = Number.isSafeInteger(page) && page >= 1 ? Math.min(page, pages) : 1;
  const changes = await pendingPage(db, key.id, {
    offset: (wanted - 1) * PREVIEW_PAGE_SIZE,
    limit: PREVIEW_PAGE_SIZE,
  });
  const onPage = new Map(changes.map((c, i) => [c.id, i]));
  const reverts: RevertLine[] = [];
  const skipped: Skip[] = [];
  for (const customerId of new Set(changes.map((c) => c.object_id))) {
    const planned = await planFor(db, actor, { keyId: key.id, customerId }, null);
    if (!planned) continue;
    reverts.push(...revertLines(planned.plan, customerId).filter((r) => onPage.has(r.change)));
    skipped.push(...planned.plan.skipped.filter((s) => onPage.has(s.change)));
  }
  // In the page's order, newest change first, whatever customer it was.
  const order = (change: string) => onPage.get(change)!;
  reverts.sort((a, b) => order(a.change) - order(b.change));
  skipped.sort((a, b) => order(a.change) - order(b.change));
  return { reverts, skipped, total, changes: changes.length, page: wanted, pages };
}
