import { sql, type SqlBool } from 'kysely';
import type { Queryable } from '../../db/schema.ts';
import type { WebhookEventTable } from '../../db/tables/webhook.ts';
import type { CursorPosition } from '../../lib/cursor.ts';
import type { Scope } from '../actor.model.ts';
import { pageSteps } from '../paging.repo.ts';

/** The events feed's reads (022's webhook_events_feed index) and its purge by age. */

export type FeedRow = Pick<WebhookEventTable, 'id' | 'type' | 'payload' | 'created_at'>;

export interface FeedQuery {
  /** Never empty: the types asked for that the key may read. */
  types: readonly string[];
  createdSince: number | null;
  after: CursorPosition | null;
  take: number;
}

export async function pageEvents(db: Queryable, scope: Scope, query: FeedQuery): Promise<FeedRow[]> {
  let events = db
    .selectFrom('webhook_events')
    .select(['id', 'type', 'payload', 'created_at'])
    .where('workspace_id', '=', scope.workspaceId)
    .where('livemode', '=', scope.livemode ? 1 : 0)
    .where('type', 'in', query.types);
  if (query.createdSince !== null) events = events.where('created_at', '>=', query.createdSince);
  return pageSteps(events, 'webhook_events', null, query.after, query.take).execute();
}

export async function findEvent(db: Queryable, scope: Scope, id: string): Promise<FeedRow | undefined> {
  return db
    .selectFrom('webhook_events')
    .select(['id', 'type', 'payload', 'created_at'])
    .where('id', '=', id)
    .where('workspace_id', '=', scope.workspaceId)
    .where('livemode', '=', scope.livemode ? 1 : 0)
    .executeTakeFirst();
}

/**
 * One batch of a workspace mode's events older than `before`, with their deliveries; an event
 * with a delivery still pending stays (DECISIONS "Events feed"). Answers how many events went.
 */
export async function deleteEventsBefore(db: Queryable, scope: Scope, before: number, limit: number): Promise<number> {
  const pending = sql<SqlBool>`exists (select 1 from webhook_deliveries d where d.event_id = webhook_events.id and d.status = 'pending')`;
  const ids = (
    await db
      .selectFrom('webhook_events')
      .select('id')
      .where('workspace_id', '=', scope.workspaceId)
      .where('livemode', '=', scope.livemode ? 1 : 0)
      .where('created_at', '<', before)
      .where((eb) => eb.not(pending))
      .limit(limit)
      .execute()
  ).map((row) => row.id);
  if (ids.length === 0) return 0;
  await db.deleteFrom('webhook_deliveries').where('event_id', 'in', ids).execute();
  await db.deleteFrom('webhook_events').where('id', 'in', ids).execute();
  return ids.length;
}
