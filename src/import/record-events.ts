import type { Engine } from '../db/dialects/types.ts';
import type { Tx } from '../db/schema.ts';
import { eventRow } from '../resources/webhook-events/event.model.ts';
import { insertEvents } from '../resources/webhook-events/event.repo.ts';
import { RECORD_KINDS, type ObjectName } from './record-kinds.ts';

// biome-ignore lint/suspicious/noExplicitAny: records are the API's shapes, checked by their schemas before this
type Rec = Record<string, any>;

/**
 * The events of the read-only records an import writes (DECISIONS "Webhooks"):
 * `<object>.created` for a record new to the workspace, `<object>.updated` for one it
 * replaced, with the record as the file gave it (the API's own shape). A record of a
 * test-aware collection is its own mode's; a shared one (venues, tags, …) makes one in
 * each mode, as both modes' keys read it. Answers how many deliveries they made.
 */
export async function recordImportEvents(
  tx: Tx,
  engine: Pick<Engine, 'maxInsertRows'>,
  workspaceId: string,
  object: ObjectName,
  records: readonly Rec[],
  existed: (id: string) => boolean,
  at: number,
): Promise<number> {
  const { mode } = RECORD_KINDS[object];
  let deliveries = 0;
  for (const livemode of [false, true]) {
    const scope = { workspaceId, livemode };
    const events = records
      .filter((r) => (mode === 'shared' ? true : mode === 'live-only' ? livemode : r.livemode === livemode))
      .map((r) => eventRow(scope, { type: `${object}.${existed(r.id) ? 'updated' : 'created'}`, at, object: r }));
    deliveries += await insertEvents(tx, engine, events);
  }
  return deliveries;
}
