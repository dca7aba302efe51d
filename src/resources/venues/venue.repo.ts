import type { Queryable } from '../../db/schema.ts';

/**
 * The `address.country` of the workspace's first venue, as stored: the workspace's default
 * country for reading phone numbers (DECISIONS "Customers").
 */
export async function firstVenueCountry(db: Queryable, workspaceId: string): Promise<string | null> {
  const venue = await db
    .selectFrom('venues')
    .select('data')
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!venue) return null;
  const data = JSON.parse(venue.data) as { address?: { country?: string | null } };
  return data.address?.country ?? null;
}
