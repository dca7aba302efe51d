import type { Db } from '../../db/schema.ts';
import { invalid, notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import { findKeyById } from '../keys/key.repo.ts';
import { getWorkspaceKey } from '../keys/key.service.ts';
import { findRequest, keyRequests, type RequestRowHead, type StatusClass } from './request-log.repo.ts';
import { toRequestObject } from './request-log.model.ts';

/** The request log's reads for the CLI (any key) and the console (its workspace's keys). */

export const STATUS_CLASSES: readonly StatusClass[] = ['2xx', '3xx', '4xx', '5xx'];
export const REQUEST_METHODS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;
export const MAX_REQUESTS_LISTED = 1_000;

export interface RequestsQuery {
  status?: string;
  method?: string;
  /** The id of the last row of the previous page: older rows follow it. */
  before?: string;
  limit?: number;
}

/** A key's requests, newest first, without bodies; `workspaceId` when a person of that workspace asks. */
export async function listKeyRequests(db: Db, keyId: string, query: RequestsQuery, workspaceId: string | null = null) {
  if (workspaceId !== null) await getWorkspaceKey(db, workspaceId, keyId);
  else if (!isIdOf('key', keyId) || !(await findKeyById(db, keyId))) throw notFound(`no key ${keyId.slice(0, 64)}`);
  const limit = query.limit ?? 50;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_REQUESTS_LISTED)
    throw invalid(`the limit is a whole number from 1 to ${MAX_REQUESTS_LISTED}`);
  if (query.status !== undefined && !(STATUS_CLASSES as readonly string[]).includes(query.status))
    throw invalid(`the status is one of ${STATUS_CLASSES.join(', ')}`);
  const method = query.method?.toUpperCase();
  if (method !== undefined && !(REQUEST_METHODS as readonly string[]).includes(method))
    throw invalid(`the method is one of ${REQUEST_METHODS.join(', ')}`);
  let before: { createdAt: number; id: string } | undefined;
  if (query.before !== undefined) {
    const last = isIdOf('request', query.before) ? await findRequest(db, query.before, workspaceId) : undefined;
    if (!last || last.key_id !== keyId) throw invalid(`no request ${query.before.slice(0, 64)} of this key`);
    before = { createdAt: last.created_at, id: last.id };
  }
  const rows: RequestRowHead[] = await keyRequests(db, keyId, {
    limit,
    ...(query.status !== undefined ? { status: query.status as StatusClass } : {}),
    ...(method !== undefined ? { method } : {}),
    ...(before ? { before } : {}),
  });
  return rows.map(toRequestObject);
}

/** One request with its bodies; unknown (or another workspace's) is a 404. */
export async function getRequest(db: Db, id: string, workspaceId: string | null = null) {
  const row = isIdOf('request', id.trim()) ? await findRequest(db, id.trim(), workspaceId) : undefined;
  if (!row) throw notFound(`no request ${id.slice(0, 64)}`);
  return toRequestObject(row);
}
