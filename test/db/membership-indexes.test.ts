import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/schema.ts';
import { pageCustomersJson, readCustomerJson } from '../../src/resources/customers/customer-json.repo.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * Migration 006: a customer read takes its tags and lists from indexes that hold every
 * column it needs (one probe a customer each, not an index probe and then the table row).
 * SQLite's plan says which index a statement uses.
 */
describe('membership look-ups of the customer reads (sqlite)', () => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    await storage.db.executeQuery({ sql: 'analyze', parameters: [] } as unknown as CompiledQuery);
  });
  afterAll(() => storage.drop());

  /** The statement text a read runs, caught on its way to the database. */
  async function statementOf(
    read: (db: Queryable) => Promise<unknown>,
  ): Promise<{ sql: string; parameters: readonly unknown[] }> {
    let caught: CompiledQuery | undefined;
    const db = new Proxy(storage.db, {
      get(target, prop) {
        if (prop === 'executeQuery') {
          return (query: CompiledQuery) => {
            caught = query;
            return target.executeQuery(query);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await read(db);
    if (!caught) throw new Error('no statement ran');
    return caught;
  }

  async function plan(statement: { sql: string; parameters: readonly unknown[] }): Promise<string[]> {
    const rows = await storage.db.executeQuery<{ detail: string }>({
      sql: `explain query plan ${statement.sql}`,
      parameters: statement.parameters,
    } as unknown as CompiledQuery);
    return rows.rows.map((r) => r.detail);
  }

  const scope = { workspaceId: 'wsp_plan', livemode: true, clock: () => Date.UTC(2026, 0, 1) };

  it('one customer: tags and lists each from a covering index', async () => {
    const statement = await statementOf((db) => readCustomerJson(db, scope, 'cus_x'));
    const details = await plan(statement);
    expect(details).toContainEqual(expect.stringMatching(/COVERING INDEX customer_tags_read/));
    expect(details).toContainEqual(expect.stringMatching(/COVERING INDEX customer_lists_read/));
  });

  it('a page of customers: the same', async () => {
    const statement = await statementOf((db) =>
      pageCustomersJson(db, scope, {
        email: undefined,
        updatedSince: null,
        after: { createdAt: 5, id: 'cus_y' },
        take: 101,
      }),
    );
    const details = await plan(statement);
    expect(details).toContainEqual(expect.stringMatching(/COVERING INDEX customer_tags_read/));
    expect(details).toContainEqual(expect.stringMatching(/COVERING INDEX customer_lists_read/));
  });
});
