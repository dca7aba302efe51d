import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertTag } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /tags on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/tags',
    collection: 'tags',
    prefix: 'tag',
    mode: 'shared',
    insert: insertTag,
    otherKindId: newId('list'),
  });

  it('a tag is exactly {id, object, name, created_at, updated_at}', async () => {
    const tn = await newTenant(t);
    const tag = await insertTag(t.storage.db, tn.liveRows, {
      name: 'Birthday club',
      created_at: '2026-01-05T03:00:00.000Z',
      updated_at: '2026-02-05T03:00:00.000Z',
    });
    const one = await get(t, tn.live, `/tags/${tag.id}`);
    expect(one.body).toEqual({
      id: tag.id,
      object: 'tag',
      name: 'Birthday club',
      created_at: '2026-01-05T03:00:00.000Z',
      updated_at: '2026-02-05T03:00:00.000Z',
    });
    expect((await get(t, tn.live, '/tags')).body.data).toEqual([one.body]);
  });
});
