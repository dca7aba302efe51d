/**
 * Purges delete in batches of at most BATCH rows, each its own short statement, so no
 * purge holds a table (SQLite: the whole database) for long while the API writes.
 */
export const BATCH = 5_000;
/** A run stops after this many batches; the next run carries on where it stopped. */
const MAX_BATCHES = 1_000;

/** Runs `deleteBatch` until a batch deletes nothing; answers the rows deleted. */
export async function deleteInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  options: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  const batch = options.batch ?? BATCH;
  const maxBatches = options.maxBatches ?? MAX_BATCHES;
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await deleteBatch(batch);
    total += n;
    if (n === 0) break;
  }
  return total;
}
