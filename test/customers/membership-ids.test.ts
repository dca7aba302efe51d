import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { keyActor, type Actor } from '../../src/resources/actor.model.ts';
import { changeMembership, type MembershipInput } from '../../src/resources/customers/membership.service.ts';
import { findKeyById } from '../../src/resources/keys/key.repo.ts';
import type { Tx } from '../../src/db/schema.ts';
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
  let actor: Actor;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    actor = keyActor((await findKeyById(t.storage.db, t.keys.test.id))!, 'req_test', t.clock.fn);
  });

  /** The membership write, with another writer's deletion run first inside its transaction. */
  const afterRemoving = (table: 'tags' | 'lists', id: string) => async (tx: Tx, a: Actor, input: MembershipInput) => {
    await tx.deleteFrom(table).where('id', '=', id).execute();
    return changeMembership(tx, a, input);
  };
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
    const write = t.app.writes.run(actor, afterRemoving('tags', tag), {
      customerId: c.id,
      kind: 'tag',
      id: tag,
      member: true,
    });
    expect(await failure(write)).toBe('not_found');
    expect(await countRows(t, 'customer_tags')).toBe(links);
  });

  it('a list removed as the write begins is a 404 and no membership is written', async () => {
    const c = await createCustomer(t, t.keys.test);
    const list = await makeList(t, 'Gone');
    const links = await countRows(t, 'customer_lists');
    const write = t.app.writes.run(actor, afterRemoving('lists', list), {
      customerId: c.id,
      kind: 'list',
      id: list,
      member: true,
    });
    expect(await failure(write)).toBe('not_found');
    expect(await countRows(t, 'customer_lists')).toBe(links);
  });
});
