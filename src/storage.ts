import { openStorage, type Storage, type StorageOptions } from './db/index.ts';
import { customerEvents } from './resources/webhook-events/customer-events.ts';
import { outboxWritten } from './resources/webhook-events/outbox-signal.ts';
import { type ChangeHook, type PipelineWriter, WritePipeline } from './resources/writes/write.pipeline.ts';

/**
 * The storage every writer shares (API, console, CLI, undo, import) with its write pipeline and
 * the events a customer change makes: wired here, once.
 */
export interface AppStorage extends Storage, PipelineWriter {}

const events: ChangeHook = { events: customerEvents, committed: outboxWritten };

export function withWrites<S extends Storage>(storage: S): S & AppStorage {
  return Object.assign(storage, { writes: new WritePipeline(storage, events) });
}

export async function openAppStorage(databaseUrl: string, options: StorageOptions = {}): Promise<AppStorage> {
  return withWrites(await openStorage(databaseUrl, options));
}
