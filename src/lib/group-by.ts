/**
 * Items grouped by a key: each group in the items' order, the groups in the order their keys
 * first appear (what `Map.groupBy` does from Node 21; this project runs on Node 20).
 */
export function groupBy<K, T>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
