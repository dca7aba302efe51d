import { sql, type QueryCreator, type SqlBool } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import { PreparedQuery } from '../../db/prepared.ts';
import type { Database, Tx } from '../../db/schema.ts';
import type { ChangeLogTable } from '../../db/tables/change.ts';
import type { Scope } from '../actor.model.ts';
import { insertChangeRows } from '../changes/change-log.repo.ts';
import { enabledEndpoints, selectEnabledEndpoints, type EndpointTaker } from '../webhooks/webhook-endpoint.repo.ts';
import type { CarriedEvent } from '../webhooks/webhook.model.ts';
import { answerRow, saveAnswer, saveParams, storing, type SaveParams } from './idempotency.repo.ts';
import type { IdempotencyClaim, StoredAnswer } from './idempotency.model.ts';

/** A POST's answer, stored under its key with the write. */
export interface AnswerToStore {
  claim: IdempotencyClaim;
  answer: StoredAnswer;
  now: number;
}

// The change-log row's columns (snake_case), the stored answer's parameters (camelCase), and a
// carried event's (prefixed), by their own names.
type TailParams = Partial<SaveParams> &
  Partial<CarriedParams> & { workspaceId: string; mode: 'live' | 'test' } & Partial<ChangeLogTable>;

interface CarriedParams {
  event_id: string;
  event_livemode: number;
  event_type: string;
  event_payload: string;
  event_at: number;
  delivery_ids: readonly string[];
}

/** An endpoint the write's last statement found, and whether it wrote the carried event's delivery to it. */
type TailRow = EndpointTaker & { delivered?: boolean };

/**
 * The write's one change-log row and, for a POST, its stored answer, in the WITH of the
 * SELECT of the scope's enabled webhook endpoints: one statement (Engine.insertsInWith).
 * With a carried event, the same statement writes it when an endpoint found takes its type,
 * with a delivery to each (as many as it has ids), and says which.
 * Shape: the row's columns, then `|answer` when there is one, then `|event`.
 */
const TAIL = new PreparedQuery<TailParams, TailRow>((db, param, shape) => {
  const [columns = '', answer, event] = shape.split('|');
  const change = Object.fromEntries(columns.split(',').map((c) => [c, param(c as keyof ChangeLogTable)]));
  // The WITH adds names the look-up never reads, so it is the plain database's query.
  const endpoints = (q: object) =>
    selectEnabledEndpoints(q as QueryCreator<Database>, param('workspaceId'), param('mode'));
  let tail = db.with('change', (w) => w.insertInto('change_log').values(change as never));
  if (answer === 'answer')
    tail = tail.with('answer', (w) => w.insertInto('idempotency_keys').values(answerRow(param as never))) as never;
  if (event !== 'event') return endpoints(tail);
  const at = sql`${param('event_at')}::bigint`;
  // DECISIONS "Webhooks": `*` or the type itself (webhook.model.ts subscribes()).
  const takes = sql<SqlBool>`ep.events::jsonb ?| array['*', ${param('event_type')}::text]`;
  return tail
    .with('ep', (w) => endpoints(w))
    .with(
      'ev',
      () => sql`(insert into webhook_events (id, workspace_id, livemode, type, payload, created_at)
        select ${param('event_id')}, ${param('workspaceId')}, ${param('event_livemode')}::integer,
          ${param('event_type')}, ${param('event_payload')}, ${at}
        where exists (select 1 from ep where ${takes})
        returning id)`,
    )
    .with(
      'dl',
      () => sql`(insert into webhook_deliveries
          (id, workspace_id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
        select t.delivery_id, ${param('workspaceId')}, t.id, ev.id, 'pending', 0, ${at}, ${at}, ${at}
        from ev, (
          select ep.id, (${param('delivery_ids')}::text[])[row_number() over (order by ep.id)] as delivery_id
          from ep where ${takes}
        ) t
        where t.delivery_id is not null
        returning endpoint_id)`,
    )
    .selectFrom('ep' as never)
    .selectAll()
    .select(sql<boolean>`ep.id in (select endpoint_id from dl)`.as('delivered')) as never;
});

/** What the write's last statement found: the enabled endpoints, and those a carried event's deliveries went to. */
export interface TailFound {
  endpoints: EndpointTaker[];
  deliveredTo: ReadonlySet<string>;
}

/**
 * A write's last rows, the same step for every write of the pipeline: its change-log rows
 * and, for a POST, the answer stored for its Idempotency-Key. Answers the enabled webhook
 * endpoints of the scope, which take the write's events (none when it changed nothing).
 * Where the engine can and the write made one change, all of it is one statement, one
 * round trip (Engine.insertsInWith), with the write's event when it is `carried`;
 * otherwise one statement each, and a carried event is left to completeCarried.
 */
export async function writeTail(
  tx: Tx,
  engine: Engine,
  scope: Scope,
  rows: readonly ChangeLogTable[],
  stored: AnswerToStore | null,
  carried: CarriedEvent | null = null,
): Promise<TailFound> {
  const [only] = rows;
  if (engine.insertsInWith && rows.length === 1 && only !== undefined) {
    const params: TailParams = Object.assign(
      { workspaceId: scope.workspaceId, mode: scope.livemode ? ('live' as const) : ('test' as const) },
      stored ? saveParams(stored.claim, stored.answer, stored.now) : {},
      carried ? carriedParams(carried) : {},
      only,
    );
    const shape = `${Object.keys(only).join(',')}|${stored ? 'answer' : ''}|${carried ? 'event' : ''}`;
    const run = () => TAIL.execute(tx, params, shape);
    const found = await (stored ? storing(run) : run());
    const deliveredTo = new Set<string>();
    const endpoints = found.map(({ delivered, ...endpoint }) => {
      if (delivered) deliveredTo.add(endpoint.id);
      return endpoint;
    });
    return { endpoints, deliveredTo };
  }
  if (rows.length > 0) await insertChangeRows(tx, [...rows]);
  if (stored) await saveAnswer(tx, stored.claim, stored.answer, stored.now);
  return { endpoints: rows.length > 0 ? await enabledEndpoints(tx, scope) : [], deliveredTo: new Set() };
}

function carriedParams({ row, deliveryIds }: CarriedEvent): CarriedParams {
  return {
    event_id: row.id,
    event_livemode: row.livemode,
    event_type: row.type,
    event_payload: row.payload,
    event_at: row.created_at,
    delivery_ids: deliveryIds,
  };
}
