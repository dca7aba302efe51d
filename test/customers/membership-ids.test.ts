import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/schema.ts';
import { ApiError } from '../../src/errors.ts';
import { addToList } from '../../src/resources/customers/customer-lists.service.ts';
import { addTag } from '../../src/resources/customers/customer-tags.service.ts';
import type { WriteScope } from '../../src/resources/customers/write-scope.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { countRows, createCustomer, makeList, makeTag } from '../helpers/writes.ts';

/**
 * SPEC "Behaviour rules" 6, 8: the tag or list must exist in the workspace. It is checked
 * inside the write's transaction, so one removed before the write began (here: at the very
 * start of the transaction, as another writer would) is a 404 and nothing is written.
 */
describe.each(ENGINES)('membership writes check their tag or list in the transaction on %s', (engine) => {
  let t: TestApp;
  let scope: WriteScope;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    scope = { workspaceId: t.workspaceId, livemode: false, actor: { kind: 'key', id: t.keys.test.id, contactsMasked: false }, requestId: null, clock: t.clock.fn };
  });
  afterAll(async () => t?.close());

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (err: unknown) => (err instanceof ApiError ? err.code : err),
    );

  it('a tag removed as the write begins is a 404 and no membership is written', async () => {
    const c = await createCustomer(t, t.keys.test);
    const tag = await makeTag(t, 'Gone');
    const links = await countRows(t, 'customer_tags');
    const removeTag = async (tx: Queryable) => void (await tx.deleteFrom('tags').where('id', '=', tag).execute());
    expect(await failure(addTag(t.storage.db, scope, c.id, tag, { begin: removeTag }))).toBe('not_found');
    expect(await countRows(t, 'customer_tags')).toBe(links);
  });

  it('a list removed as the write begins is a 404 and no membership is written', async () => {
    const c = await createCustomer(t, t.keys.test);
    const list = await makeList(t, 'Gone');
    const links = await countRows(t, 'customer_lists');
    const removeList = async (tx: Queryable) => void (await tx.deleteFrom('lists').where('id', '=', list).execute());
    expect(await failure(addToList(t.storage.db, scope, c.id, list, { begin: removeList }))).toBe('not_found');
    expect(await countRows(t, 'customer_lists')).toBe(links);
  });
});
