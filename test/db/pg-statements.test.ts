import { describe, expect, it } from 'vitest';
import { isStalePlan, PREPARED_MAX_CHARS, StatementCache, statementName } from '../../src/db/dialects/pg-statements.ts';

/** dialects/pg-statements.ts alone: the names, the bound, and what goes to DEALLOCATE. */
function fakeClient() {
  const sent: string[] = [];
  const parsedStatements: Record<string, string> = {};
  return {
    sent,
    parsedStatements,
    connection: { parsedStatements },
    query: async (text: string) => {
      sent.push(text);
    },
  };
}

describe('the named-statement cache of one connection', () => {
  it('names a text the same way every time, and on every connection', () => {
    const a = new StatementCache(10);
    const b = new StatementCache(10);
    const text = 'select * from customers where id = $1';
    expect(a.name(text)).toBe(statementName(text));
    expect(a.name(text)).toBe(b.name(text));
    expect(a.name('select 2 where $1')).not.toBe(a.name(text));
    expect(statementName(text)).toMatch(/^v_[A-Za-z0-9_-]+$/);
  });

  it('leaves statements without parameters, or too long, unnamed', () => {
    const cache = new StatementCache(10);
    expect(cache.nameFor('begin', 0)).toBeUndefined();
    expect(cache.nameFor(`select $1 ${' '.repeat(PREPARED_MAX_CHARS)}`, 1)).toBeUndefined();
    expect(cache.nameFor('select $1', 1)).toBe(statementName('select $1'));
  });

  it('evicts the least recently used past its bound and deallocates it at the next checkout', async () => {
    const cache = new StatementCache(2);
    const client = fakeClient();
    const [a, b, c] = ['select $1 as a', 'select $1 as b', 'select $1 as c'];
    cache.name(a);
    cache.name(b);
    cache.name(a); // a is now the most recent: b goes first
    client.parsedStatements[statementName(b)] = b;
    cache.name(c);
    expect(cache.pending()).toEqual([statementName(b)]);

    await cache.deallocate(client as never);
    expect(client.sent).toEqual([`deallocate "${statementName(b)}"`]);
    expect(client.parsedStatements[statementName(b)]).toBeUndefined();
    expect(cache.pending()).toEqual([]);

    await cache.deallocate(client as never);
    expect(client.sent).toHaveLength(1);
  });

  it('keeps a statement used again before its deallocation', () => {
    const cache = new StatementCache(1);
    const [a, b] = ['select $1 as a', 'select $1 as b'];
    cache.name(a);
    cache.name(b);
    expect(cache.pending()).toEqual([statementName(a)]);
    cache.name(a);
    expect(cache.pending()).toEqual([statementName(b)]);
  });

  it('forgets a statement whose plan went stale, to prepare it again', () => {
    const cache = new StatementCache(10);
    cache.name('select $1');
    cache.forget('select $1');
    cache.forget('never named');
    expect(cache.pending()).toEqual([statementName('select $1')]);
  });

  it('knows PostgreSQL’s refusal of a stale plan from other errors', () => {
    const stale = Object.assign(new Error('cached plan must not change result type'), { code: '0A000' });
    expect(isStalePlan(stale)).toBe(true);
    expect(isStalePlan(Object.assign(new Error('other'), { code: '0A000' }))).toBe(false);
    expect(isStalePlan(new Error('cached plan must not change result type'))).toBe(false);
  });
});
