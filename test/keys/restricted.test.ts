import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/** DECISIONS "Keys": a read outside can_read is 403, including a read through a write's answer. */
describe.each(ENGINES)('restricted keys on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('a customer write without the customers read cannot be granted', async () => {
    await expect(
      createKey(t.storage, t.clock.fn, {
        workspaceId: t.workspaceId,
        name: 'sneaky',
        mode: 'test',
        access: 'read_write',
        restricted: { canRead: ['venues'], canWrite: ['customers.tags'] },
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('a key that somehow holds one is refused with 403 before anything is read or written', async () => {
    const key = await t.makeKey({
      name: 'legacy',
      restricted: { canRead: ['venues', 'customers'], canWrite: ['customers.update'] },
    });
    await t.storage.db
      .updateTable('api_keys')
      .set({ can_read: JSON.stringify(['venues']), updated_at: t.clock.now + 1 })
      .where('id', '=', key.id)
      .execute();
    await t.keysCache.refresh();
    const created = await t.call(t.keys.test, {
      method: 'POST',
      url: '/customers',
      headers: { 'idempotency-key': 'restricted-1' },
      payload: { first_name: 'Ada', email: 'ada.restricted@example.com' },
    });
    expect(created.statusCode).toBe(201);
    const res = await t.call(key, { method: 'PATCH', url: `/customers/${created.json().id}`, payload: {} });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('forbidden');
    expect(res.body).not.toContain('ada.restricted');
  });
});
