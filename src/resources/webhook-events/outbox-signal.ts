import { EventEmitter } from 'node:events';

/** Tells this process's webhook worker that deliveries due now were committed, so it looks at once. */
export const outbox = new EventEmitter<{ written: [] }>();

/** Called once the write that made deliveries is durable. */
export const outboxWritten = () => outbox.emit('written');
