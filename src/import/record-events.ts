import type { Tx } from '../db/schema.ts';
import { recordEvents, type NewEvent } from '../resources/webhooks/webhook-event.service.ts';
import { RECORD_KINDS, type ObjectName } from './record-kinds.ts';

// biome-ignore lint/suspicious/noExplicitAny: records are the API's shapes, checked by their schemas before this
type Rec = Record<string, any>;

/**
 * The webhook events of the read-only records an import writes (DECISIONS "Webhooks"):
 * `<object>.created` for a record new to the workspace, `<object>.updated` for one it
 * replaced, with the record as the file gave it (the API's own shape). A record of a
 * test-aware collection goes to its own mode's endpoints; a shared one (venues, tags, …)
 * to both modes', as both modes' keys read it.
 */
export async function recordImportEvents(
  tx: Tx,
  workspaceId: string,
  object: ObjectName,
  records: readonly Rec[],
  existed: (id: string) => boolean,
  at: number,
): Promise<void> {
  const { mode } = RECORD_KINDS[object];
  for (const livemode of [false, true]) {
    const events: NewEvent[] = records
      .filter((r) => (mode === 'shared' ? true : mode === 'live-only' ? livemode : r.livemode === livemode))
      .map((r) => ({ type: `${object}.${existed(r.id) ? 'updated' : 'created'}`, at, object: r }));
    await recordEvents(tx, { workspaceId, livemode }, events);
  }
}
