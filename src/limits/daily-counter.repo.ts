import type { Writer } from '../db/write.ts';

/** Daily increments not yet written: counter id -> its day and how many. */
export type UnsavedCounts = Map<string, { windowStart: number; count: number }>;

/** How many rows one INSERT carries: well under SQLite's and PostgreSQL's parameter caps. */
const BATCH = 500;

/** The daily counts of the in-process limit store, kept in the database (003-limits). */
export class DailyCounterRepo {
  constructor(private readonly store: Writer) {}

  async load(dayStart: number): Promise<{ counterId: string; count: number }[]> {
    const rows = await this.store.db
      .selectFrom('limit_counters')
      .select(['counter_id', 'count'])
      .where('window_start', '=', dayStart)
      .execute();
    return rows.map((r) => ({ counterId: r.counter_id, count: Number(r.count) }));
  }

  /**
   * Adds the increments (not overwrites: every process adds its own to the same rows) and
   * drops the days before `today`, in one transaction. Rows go in counter order, so two
   * processes adding to the same rows at once lock them in the same order (no deadlock).
   */
  async add(counts: UnsavedCounts, today: number): Promise<void> {
    const rows = [...counts]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, { windowStart, count }]) => ({ counter_id: id, window_start: windowStart, count }));
    await this.store.write(async (tx) => {
      for (let i = 0; i < rows.length; i += BATCH) {
        await tx
          .insertInto('limit_counters')
          .values(rows.slice(i, i + BATCH))
          .onConflict((oc) =>
            oc.column('counter_id').doUpdateSet((eb) => ({
              count: eb('limit_counters.count', '+', eb.ref('excluded.count')),
            })),
          )
          .execute();
      }
      await tx.deleteFrom('limit_counters').where('window_start', '<', today).execute();
    });
  }
}
