import { openStorage, type Storage, type StorageOptions } from './db/index.ts';
import { outboxWritten, writeCustomerEvents } from './resources/webhooks/webhook-event.service.ts';
import { type ChangeHook, type PipelineWriter, WritePipeline } from './resources/writes/write.pipeline.ts';

/**
 * The storage every writer shares (API, console, CLI, undo, import) with its write pipeline and
 * what a committed customer change must also write, its webhook events: wired here, once.
 */
export interface AppStorage extends Storage, PipelineWriter {}

const customerEvents: ChangeHook = { write: writeCustomerEvents, committed: outboxWritten };

export function withWrites<S extends Storage>(storage: S): S & AppStorage {
  return Object.assign(storage, { writes: new WritePipeline(storage, customerEvents) });
}

export async function openAppStorage(databaseUrl: string, options: StorageOptions = {}): Promise<AppStorage> {
  return withWrites(await openStorage(databaseUrl, options));
}
