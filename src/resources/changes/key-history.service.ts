import type { Db } from '../../db/schema.ts';
import type { Change } from './change.model.ts';
import { keyLogPage } from './key-log.repo.ts';

const HISTORY_PAGE_SIZE = 20;

export interface KeyHistoryPage {
  changes: Change[];
  page: number;
  /** null: the log was not counted whole (more than KEY_LOG_COUNTED changes). */
  pages: number | null;
  total: number | null;
  /** Whether a page of older changes follows. */
  older: boolean;
}

/** A key's change log, newest first, a page at a time (the key's page in the console). */
export async function keyHistory(db: Db, keyId: string, page: number): Promise<KeyHistoryPage> {
  const wanted = Number.isSafeInteger(page) && page >= 1 ? page : 1;
  const { changes, total, older } = await keyLogPage(db, keyId, {
    offset: (wanted - 1) * HISTORY_PAGE_SIZE,
    limit: HISTORY_PAGE_SIZE,
  });
  const pages = total === null ? null : Math.max(1, Math.ceil(total / HISTORY_PAGE_SIZE));
  return { changes, page: wanted, pages, total, older };
}
