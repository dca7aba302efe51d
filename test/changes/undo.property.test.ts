import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { makeList, makeTag, roomy, roomyKey, staffActor, writesAs, type Writer } from '../helpers/writes.ts';
import { expectedAfterUndo, fieldNames, snapshot, type CustomerSnapshot, type LogRow } from './undo-oracle.ts';
import { applyStep, Step, type World } from './undo-steps.ts';
import { membershipCountDrift } from '../helpers/membership-counts.ts';

/**
 * Undo against an oracle: random sequences of edits by a key K and by others (another key, staff), then
 * undo K. No change anyone else made after K's is reverted; every field K changed that
 * nobody touched since is back (undo-oracle.ts says what that means from the log alone);
 * undoing twice changes nothing.
 */
const operator = { kind: 'operator', id: 'property' } as const;

describe.each(ENGINES)('undo properties on %s', (engine) => {
  let t: TestApp;
  let staff: Writer;
  let tags: string[];
  let lists: string[];
  let run = 0;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    staff = writesAs(t.app.writes, await staffActor(t, false));
    tags = [await makeTag(t, 'one'), await makeTag(t, 'two')];
    lists = [await makeList(t, 'one'), await makeList(t, 'two')];
  });
  afterAll(async () => t?.close());

  async function logOf(id: string): Promise<LogRow[]> {
    const rows = await t.storage.db
      .selectFrom('change_log')
      .selectAll()
      .where('object_id', '=', id)
      .orderBy('customer_version')
      .execute();
    return rows.map((r) => ({
      ...r,
      before: r.before ? JSON.parse(r.before) : null,
      after: r.after ? JSON.parse(r.after) : null,
    }));
  }

  async function scenario(w: World, steps: Step[]): Promise<void> {
    for (let i = 0; i < 3; i++) w.pool.push((await staff.create({ first_name: `Base ${i}` })).record.id);
    for (const step of steps) await applyStep(w, step);

    const expected = new Map<string, CustomerSnapshot>();
    for (const id of w.pool) {
      const log = await logOf(id);
      expected.set(id, expectedAfterUndo(w.keys.K.id, log, await snapshot(t.storage.db, id, fieldNames(log))));
    }
    const states = () =>
      Promise.all(w.pool.map((id) => snapshot(t.storage.db, id, Object.keys(expected.get(id)!.fields))));

    const report = await undoKeyChanges(t.storage, w.keys.K.id, { by: operator, clock: t.clock.fn });
    const emailRefused = new Set(report.skipped.filter((s) => s.reason === 'email_taken').map((s) => s.customer));
    for (const [id, want] of expected) {
      const got = await snapshot(t.storage.db, id, Object.keys(want.fields));
      if (emailRefused.has(id)) expect(got.exists, `customer ${id} stays deleted`).toBe(false);
      else expect(got, `customer ${id}`).toEqual(want);
    }

    const once = await states();
    expect(await undoKeyChanges(t.storage, w.keys.K.id, { by: operator, clock: t.clock.fn })).toEqual({
      reverted: 0,
      skipped: [],
    });
    expect(await states()).toEqual(once);
  }

  it("never reverts anyone else's later change, restores what only K touched, and is idempotent", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(Step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const keys = { K: await roomyKey(t), O: await roomyKey(t) };
        try {
          await scenario({ t, staff, keys, tags, lists, pool: [], run: ++run }, steps);
        } finally {
          // Revoked keys do not count against the workspace's 25 (shrinking runs many times).
          for (const k of Object.values(keys)) await changeKeyStatus(t.storage, t.clock.fn, k.id, 'revoke');
        }
      }),
      { numRuns: engine === 'sqlite' ? 60 : 40 },
    );
  }, 120_000);

  it("leaves every customer's tag and list counts true (migration 007's triggers)", async () => {
    expect(await membershipCountDrift(t.storage.db)).toEqual([]);
  });
});
