import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { cli } from '../cli/cli.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, get, patch, roomy, roomyKey, staffActor, writesAs, type Writer } from '../helpers/writes.ts';

/**
 * What stops an undo, and how the report names it (DECISIONS "Change log and undo"): a later
 * change by someone else is `changed_since` with who made it; the key's own later change,
 * kept because it was itself skipped, is `later_change_kept`; a write that left no log row
 * (the customer's version is past every logged one) stops every change to that customer.
 */
describe.each(ENGINES)('undo blockers on %s', (engine) => {
  let t: TestApp;
  let staff: Writer;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    staff = writesAs(t.app.writes, await staffActor(t, false));
  });
  afterAll(async () => t?.close());

  const operator = { kind: 'operator', id: 'cli:test' } as const;
  const undo = (key: TestKey, dryRun = false) =>
    undoKeyChanges(t.storage, key.id, { by: operator, clock: t.clock.fn, dryRun });

  it("names the key's own kept later change later_change_kept, not someone else's", async () => {
    const k = await roomyKey(t);
    const c = await createCustomer(t, k);
    await patch(t, k, c.id, { nickname: 'by key' });
    await staff.update(c.id, { nickname: 'by staff' });
    const report = await undo(k);
    expect(report.reverted).toBe(0);
    expect(report.skipped).toEqual([
      {
        change: expect.any(String),
        action: 'customer.update',
        customer: c.id,
        field: 'nickname',
        reason: 'changed_since',
        by: staff.actor.id,
      },
      { change: expect.any(String), action: 'customer.create', customer: c.id, reason: 'later_change_kept' },
    ]);
    expect((await get(t, t.keys.test, c.id)).json().nickname).toBe('by staff');
  });

  it("a field the key's later change had put back is no blocker, though that change kept another field", async () => {
    const k = await roomyKey(t);
    const other = await roomyKey(t);
    const c = await createCustomer(t, t.keys.test, { company: 'Start' });
    await patch(t, k, c.id, { address: { line1: 'a' } });
    await patch(t, k, c.id, { company: 'a', address: { line1: null } });
    await patch(t, other, c.id, { company: 'b' });
    const report = await undo(k);
    // The later change keeps company (someone else changed it since) but gives line1 back,
    // so the earlier change of line1 is undone too: line1 is what it was before the key.
    expect(report.skipped).toEqual([
      {
        change: expect.any(String),
        action: 'customer.update',
        customer: c.id,
        field: 'company',
        reason: 'changed_since',
        by: other.id,
      },
    ]);
    const now = (await get(t, t.keys.test, c.id)).json();
    expect(now.address.line1).toBeNull();
    expect(now.company).toBe('b');
  });

  it('the CLI says so in words', async () => {
    const k = await roomyKey(t);
    const c = await createCustomer(t, k);
    await patch(t, k, c.id, { nickname: 'by key' });
    await staff.update(c.id, { nickname: 'by staff' });
    const run = await cli(t.storage, 'undo', k.id, '--dry-run');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\(customer\.update cus_\w+ nickname\): changed later by someone else \(stf_\w+\)/);
    expect(run.stdout).toMatch(
      /\(customer\.create cus_\w+\): the key's own later change to it was kept \(not undone\)\n/,
    );
  }, 60_000);

  it('reverts nothing of a customer written since without a log row, and says "unlogged"', async () => {
    const k = await roomyKey(t);
    const c = await createCustomer(t, t.keys.test, { last_name: 'Before' });
    await patch(t, k, c.id, { last_name: 'By key' });
    // A writer that moves the version on without logging (as the import once did).
    await t.storage.db
      .updateTable('customers')
      .set((eb) => ({ company: 'Unlogged Co', version: eb('version', '+', 1) }))
      .where('id', '=', c.id)
      .execute();
    const report = await undo(k);
    expect(report).toEqual({
      reverted: 0,
      skipped: [
        {
          change: expect.any(String),
          action: 'customer.update',
          customer: c.id,
          reason: 'changed_since',
          by: 'unlogged',
        },
      ],
    });
    expect((await get(t, t.keys.test, c.id)).json()).toMatchObject({
      last_name: 'By key',
      company: 'Unlogged Co',
      version: '3',
    });
    expect(await undo(k)).toEqual({ reverted: 0, skipped: [] });
  });
});
