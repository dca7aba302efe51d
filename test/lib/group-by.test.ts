import { describe, expect, it } from 'vitest';
import { groupBy } from '../../src/lib/group-by.ts';

describe('groupBy', () => {
  it('keeps each group in the items’ order and the groups in the order their keys first appear', () => {
    const grouped = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (s) => s[0]);
    expect([...grouped.entries()]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ]);
    expect(groupBy([], (s: string) => s).size).toBe(0);
  });
});
