import type { Db } from '../../src/db/schema.ts';
import { hourStart, HOUR_MS } from '../../src/jobs/activity.repo.ts';
import { newId } from '../../src/lib/ids.ts';

/** `n` live (or test) customers, inserted in one statement per 200. */
export async function addCustomers(
  db: Db,
  workspaceId: string,
  n: number,
  at: number,
  livemode = true,
): Promise<string[]> {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId('customer'),
    workspace_id: workspaceId,
    livemode: livemode ? 1 : 0,
    first_name: `Customer ${i}`,
    marketing_consent: 0,
    member: 0,
    version: 1,
    created_at: at - i,
    updated_at: at - i,
  }));
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('customers')
      .values(rows.slice(i, i + 200))
      .execute();
  return rows.map((r) => r.id);
}

/** `perHour` requests in every clock hour from `from` up to (not including) `to`. */
export async function seedHours(
  db: Db,
  key: { id: string; workspaceId: string },
  from: number,
  to: number,
  perHour: number,
): Promise<void> {
  const rows = [];
  for (let h = hourStart(from); h < to; h += HOUR_MS) {
    rows.push({ key_id: key.id, workspace_id: key.workspaceId, hour_start: h, requests: perHour });
  }
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('key_activity_hours')
      .values(rows.slice(i, i + 200))
      .execute();
  }
}
