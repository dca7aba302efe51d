import type { Queryable } from '../../db/schema.ts';

/** Names of a workspace's tags and lists by id: a removed membership's `previous_attributes` entry. */
export async function vocabularyNames(
  db: Queryable,
  workspaceId: string,
  ids: { tags: readonly string[]; lists: readonly string[] },
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const table of ['tags', 'lists'] as const) {
    const wanted = table === 'tags' ? ids.tags : ids.lists;
    if (wanted.length === 0) continue;
    const rows = await db
      .selectFrom(table)
      .select(['id', 'name'])
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', [...wanted])
      .execute();
    for (const r of rows) names.set(r.id, r.name);
  }
  return names;
}
