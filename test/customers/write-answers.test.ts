import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { del, get, makeList, makeTag, patch, post, roomy, roomyKey } from '../helpers/writes.ts';

/**
 * A write's answer is the customer as a GET right after it sends it, byte for byte, with the
 * same ETag: both are the one read statement's (customer-json.repo.ts, the write's inside its
 * transaction, a create's after its INSERT), masked alike for a contacts-masked key
 * (lib/mask.ts). For a key that sees everything and for a contacts-masked key.
 */
describe.each(ENGINES)('write answers are the following GET (%s)', (engine) => {
  let t: TestApp;
  let tag: string;
  let list: string;
  const keys: Record<'plain' | 'masked', TestKey> = {} as never;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    tag = await makeTag(t, 'Wine "club" ☕');
    list = await makeList(t, 'News\\letter');
    keys.plain = await roomyKey(t, { mode: 'test' });
    keys.masked = await roomyKey(t, { mode: 'test', contactsMasked: true });
  });
  afterAll(async () => t?.close());

  async function sameAsGet(key: TestKey, answer: LightMyRequestResponse, status = 200): Promise<string> {
    expect(answer.statusCode, answer.body).toBe(status);
    const id = (answer.json() as { id: string }).id;
    const read = await get(t, key, id);
    expect(read.statusCode).toBe(200);
    expect(answer.body).toBe(read.body);
    expect(answer.headers.etag).toBe(read.headers.etag);
    expect(answer.headers['content-type']).toBe(read.headers['content-type']);
    return id;
  }

  it.each(['plain', 'masked'] as const)('create, update, tags and lists (%s key)', async (which) => {
    const key = keys[which];
    const created = await post(t, key, '/customers', {
      first_name: 'Zoë',
      last_name: 'O\'Brien "the" \\ </script>',
      email: `${which}.zoe@example.com`,
      phone: '+61 412 345 678',
      date_of_birth: '2008-02-29',
      address: { line1: '1 Main St', country: 'AU' },
    });
    const id = await sameAsGet(key, created, 201);
    if (which === 'masked') expect(created.json()).toMatchObject({ email: 'm***@example.com', phone: '+*********78' });

    await sameAsGet(key, await patch(t, key, id, { nickname: 'Z', address: { line2: null } }));
    // Nothing to change: the answer is still the customer as it is.
    await sameAsGet(key, await patch(t, key, id, { nickname: 'Z' }));
    await sameAsGet(key, await post(t, key, `/customers/${id}/tags`, { tag }));
    await sameAsGet(key, await post(t, key, `/customers/${id}/tags`, { tag }));
    await sameAsGet(key, await post(t, key, `/customers/${id}/lists`, { list }));
    const tagged = await get(t, key, id);
    expect(tagged.json()).toMatchObject({ tags: [{ id: tag }], lists: [{ id: list, status: 'active' }] });
    await sameAsGet(key, await del(t, key, `/customers/${id}/lists/${list}`));
    await sameAsGet(key, await del(t, key, `/customers/${id}/tags/${tag}`));
    await sameAsGet(key, await post(t, key, `/customers/${id}/lists`, { list }));
  });

  it('a replayed create is the first answer, which was a GET of it', async () => {
    const headers = { 'idempotency-key': `replay-${engine}` };
    const first = await post(t, keys.masked, '/customers', { first_name: 'Once', email: 'once@example.com' }, headers);
    await sameAsGet(keys.masked, first, 201);
    const again = await post(t, keys.masked, '/customers', { first_name: 'Once', email: 'once@example.com' }, headers);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });
});
