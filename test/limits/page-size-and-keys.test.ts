import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEYS_PER_WORKSPACE } from '../../src/resources/keys/key.model.ts';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertVenue } from '../helpers/fixtures.ts';
import { ENGINES } from '../helpers/storage.ts';

describe.each(ENGINES)('page size and keys per workspace on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    for (let i = 0; i < 4; i++) await insertVenue(t.storage.db, { workspaceId: t.workspaceId });
  });
  afterAll(async () => t?.close());

  it('a key made with page_size_max=3 and page_size_default=2 pages by those figures', async () => {
    const key = await t.makeKey({ limits: { page_size_max: 3, page_size_default: 2 } });
    const me = (await t.call(key, { url: '/key' })).json();
    expect(me.limits).toMatchObject({ page_size_max: 3, page_size_default: 2 });
    const first = await t.call(key, { url: '/venues' });
    expect(first.json().data).toHaveLength(2);
    expect((await t.call(key, { url: '/venues?limit=3' })).json().data).toHaveLength(3);
    const over = await t.call(key, { url: '/venues?limit=4' });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'invalid_request' });
    expect(over.json().detail).toContain('1 to 3');
  });

  it('without an override a page is 25 by default and at most 100', async () => {
    expect((await t.call(t.keys.test, { url: '/venues?limit=100' })).statusCode).toBe(200);
    expect((await t.call(t.keys.test, { url: '/venues?limit=101' })).json().code).toBe('invalid_request');
    expect((await t.call(t.keys.test, { url: '/venues?limit=0' })).json().code).toBe('invalid_request');
  });

  it('a workspace holds at most 25 keys that are not revoked', async () => {
    const ws = await createWorkspace(t.storage, t.clock.fn, { name: 'Full' });
    const made = [];
    for (let i = 0; i < MAX_KEYS_PER_WORKSPACE; i++)
      made.push(await t.makeKey({ workspaceId: ws.id, name: `key ${i}` }));
    expect(MAX_KEYS_PER_WORKSPACE).toBe(25);
    await expect(t.makeKey({ workspaceId: ws.id, name: 'the 26th' })).rejects.toMatchObject({ code: 'conflict' });
    await changeKeyStatus(t.storage, t.clock.fn, made[0]!.id, 'revoke');
    await expect(t.makeKey({ workspaceId: ws.id, name: 'a replacement' })).resolves.toMatchObject({
      id: expect.any(String),
    });
  });
});
