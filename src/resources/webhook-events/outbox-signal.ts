/** Tells this process's webhook worker that deliveries due now were committed, so it looks at once. */
const listeners = new Set<() => void>();

export function onOutboxWritten(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Called once the write that made deliveries is durable. */
export function outboxWritten(): void {
  for (const listener of listeners) listener();
}
