import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertList } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /lists on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/lists',
    collection: 'lists',
    prefix: 'lst',
    mode: 'shared',
    insert: insertList,
    otherKindId: newId('tag'),
  });

  it('answers every SPEC field, nulls included', async () => {
    const tn = await newTenant(t);
    const rule = await insertList(t.storage.db, tn.liveRows, {
      name: 'Lapsed bowlers',
      slug: 'lapsed',
      description: null,
      kind: null,
    });
    const manual = await insertList(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, '/lists');
    expect(res.body).toEqual({ object: 'list', data: [manual, rule], has_more: false });
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      ['id', 'object', 'name', 'slug', 'description', 'kind', 'created_at', 'updated_at'].sort(),
    );
    expect((await get(t, tn.test, `/lists/${rule.id}`)).body).toEqual(rule);
  });
});
