import type { Db } from '../../db/schema.ts';

/** A key's requests per clock hour since `from` (the activity tracker's counts). */
export function hourlyRequests(db: Db, keyId: string, from: number) {
  return db
    .selectFrom('key_activity_hours')
    .select(['hour_start', 'requests'])
    .where('key_id', '=', keyId)
    .where('hour_start', '>=', from)
    .execute();
}

/** What the hourly checks saw of a key since `from` (013-key-activity-checks). */
export function checksOfKey(db: Db, keyId: string, from: number) {
  return db
    .selectFrom('key_activity_checks')
    .select(['hour_start', 'requests', 'request_threshold', 'customers_sent', 'customer_threshold', 'verdict'])
    .where('key_id', '=', keyId)
    .where('hour_start', '>=', from)
    .execute();
}
