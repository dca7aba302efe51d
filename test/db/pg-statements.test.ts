import { describe, expect, it } from 'vitest';
import { isStalePlan, PREPARED_MAX_CHARS, StatementNames, statementName } from '../../src/db/dialects/pg-statements.ts';

/** dialects/pg-statements.ts alone: the names, the bound, and when a connection is retired. */
describe('the statement names of one connection', () => {
  it('names a text the same way every time, and on every connection', () => {
    const a = new StatementNames(10);
    const b = new StatementNames(10);
    const text = 'select * from customers where id = $1';
    expect(a.nameFor(text, 1)).toBe(statementName(text));
    expect(a.nameFor(text, 1)).toBe(b.nameFor(text, 1));
    expect(a.nameFor('select 2 where $1', 1)).not.toBe(a.nameFor(text, 1));
    expect(statementName(text)).toMatch(/^v_[A-Za-z0-9_-]+$/);
  });

  it('leaves statements without parameters, or too long, unnamed', () => {
    const names = new StatementNames(10);
    expect(names.nameFor('begin', 0)).toBeUndefined();
    expect(names.nameFor(`select $1 ${' '.repeat(PREPARED_MAX_CHARS)}`, 1)).toBeUndefined();
    expect(names.nameFor('select $1', 1)).toBe(statementName('select $1'));
    expect(names.retired).toBe(false);
  });

  it('past its bound, runs a new text unnamed, and from then on every text, and retires the connection', () => {
    const names = new StatementNames(2);
    const [a, b, c] = ['select $1 as a', 'select $1 as b', 'select $1 as c'];
    expect(names.nameFor(a, 1)).toBe(statementName(a));
    expect(names.nameFor(b, 1)).toBe(statementName(b));
    expect(names.nameFor(a, 1)).toBe(statementName(a));
    expect(names.retired).toBe(false);
    expect(names.nameFor(c, 1)).toBeUndefined();
    expect(names.nameFor(a, 1)).toBeUndefined();
    expect(names.retired).toBe(true);
  });

  it('once a plan went stale, names nothing more and retires the connection', () => {
    const names = new StatementNames(10);
    names.nameFor('select $1', 1);
    names.retire();
    expect(names.nameFor('select $1', 1)).toBeUndefined();
    expect(names.retired).toBe(true);
  });

  it('knows PostgreSQL’s refusal of a stale plan from other errors', () => {
    const stale = Object.assign(new Error('cached plan must not change result type'), { code: '0A000' });
    expect(isStalePlan(stale)).toBe(true);
    expect(isStalePlan(Object.assign(new Error('other'), { code: '0A000' }))).toBe(false);
    expect(isStalePlan(new Error('cached plan must not change result type'))).toBe(false);
  });
});
