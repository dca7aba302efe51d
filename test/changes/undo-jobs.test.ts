import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { purgeUndoJobs } from '../../src/jobs/retention.ts';
import { UndoJobWorker } from '../../src/jobs/undo-jobs.ts';
import { DAY_MS } from '../../src/lib/time.ts';
import type { AuditActor } from '../../src/resources/audit/audit.model.ts';
import { requestUndo, type UndoJob } from '../../src/resources/changes/undo-job.service.ts';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, patch, roomy, roomyKey, staffActor, writesAs, type Writer } from '../helpers/writes.ts';

/** A gate a worker's afterBatch hook waits at: the test looks at the job there, then opens it. */
function gate() {
  let open!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  const arrived = new Promise<void>((r) => {
    reached = r;
  });
  const wait = () => {
    reached();
    return opened;
  };
  return { open, arrived, wait };
}

describe.each(ENGINES)('undo jobs on %s', (engine) => {
  let t: TestApp;
  let staff: Writer;
  const asker: AuditActor = { kind: 'staff', staffId: 'stf_asker', email: 'asker@example.com', address: '203.0.113.9' };
  const by = { kind: 'staff', id: 'stf_asker' } as const;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    staff = writesAs(t.app.writes, await staffActor(t, false));
  });
  afterAll(async () => t?.close());

  /**
   * A key with 8 changes: updates to 6 customers staff made (two of them edited by staff
   * since, so a field is skipped) and 2 customers it created; and what the undo would do.
   */
  async function scenario() {
    const key = await roomyKey(t);
    for (let i = 0; i < 6; i++) {
      t.clock.now += 1;
      const c = (await staff.create({ first_name: `S${i}`, last_name: 'Staff' })).record;
      t.clock.now += 1;
      expect((await patch(t, key, c.id, { last_name: `K${i}`, company: `Co${i}` })).statusCode).toBe(200);
      if (i < 2) {
        t.clock.now += 1;
        await staff.update(c.id, { last_name: `Later${i}` });
      }
    }
    for (let i = 0; i < 2; i++) {
      t.clock.now += 1;
      await createCustomer(t, key, { first_name: `New${i}` });
    }
    const expected = await undoKeyChanges(t.storage, key.id, { by, clock: t.clock.fn, dryRun: true });
    expect(expected.reverted).toBe(8);
    expect(expected.skipped.map((s) => [s.field, s.reason])).toEqual([
      ['last_name', 'changed_since'],
      ['last_name', 'changed_since'],
    ]);
    t.clock.now += 1000;
    return { key, expected };
  }

  const ask = (key: TestKey) =>
    requestUndo(t.storage, { id: key.id, workspaceId: t.workspaceId }, by, asker, t.clock.fn);
  const jobRow = (id: string) =>
    t.storage.db.selectFrom('undo_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const worker = (extra: Partial<ConstructorParameters<typeof UndoJobWorker>[0]> = {}) =>
    new UndoJobWorker({ store: t.storage, clock: t.clock.fn, ...extra });

  /** The undo rows that revert one of the key's changes, per change: never more than one. */
  async function revertsOf(key: TestKey): Promise<Map<string, number>> {
    const rows = await t.storage.db
      .selectFrom('change_log as u')
      .innerJoin('change_log as c', 'c.id', 'u.reverts')
      .select('u.reverts')
      .where('c.key_id', '=', key.id)
      .execute();
    const out = new Map<string, number>();
    for (const r of rows) out.set(r.reverts!, (out.get(r.reverts!) ?? 0) + 1);
    return out;
  }

  async function expectFinished(job: UndoJob, key: TestKey, expected: { reverted: number; skipped: unknown[] }) {
    const row = await jobRow(job.id);
    expect(row).toMatchObject({
      status: 'done',
      total: 8,
      reverted: expected.reverted,
      skipped: 0,
      skip_rows: expected.skipped.length,
      error: null,
      claim: null,
    });
    const reverts = await revertsOf(key);
    expect(reverts.size).toBe(expected.reverted);
    expect([...reverts.values()].every((n) => n === 1)).toBe(true);
    // Nothing is left to undo, and the audit log has the one entry, naming who asked.
    expect((await undoKeyChanges(t.storage, key.id, { by, clock: t.clock.fn, dryRun: true })).reverted).toBe(0);
    const audit = await t.storage.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'undo.run')
      .where('target', '=', key.id)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: 'asker@example.com', address: '203.0.113.9' });
    expect(JSON.parse(audit[0]!.detail as string)).toEqual({
      reverted: expected.reverted,
      skipped: expected.skipped.length,
      finished: true,
    });
  }

  it('runs to completion in batches; its counts and skipped list match what the undo itself reports', async () => {
    const { key, expected } = await scenario();
    const job = await ask(key);
    expect(job).toMatchObject({ status: 'queued', total: 8, reverted: 0 });
    const progress: number[] = [];
    await worker({ batch: 2, afterBatch: async (j) => void progress.push(j.reverted + j.skipped) }).drain();
    // Each batch takes the customers of the key's next 2 changes and undoes them whole.
    expect(progress).toEqual([2, 4, 6, 8]);
    await expectFinished(job, key, expected);
    const skips = await t.storage.db
      .selectFrom('undo_job_skips')
      .select(['change_id', 'field', 'reason', 'by'])
      .where('job_id', '=', job.id)
      .orderBy('seq')
      .execute();
    expect(skips).toEqual(
      expected.skipped.map((s) => ({ change_id: s.change, field: s.field, reason: s.reason, by: s.by })),
    );
  });

  it('shows its progress mid-way, and refuses a second undo of the key until it ends', async () => {
    const { key, expected } = await scenario();
    const job = await ask(key);
    await expect(ask(key)).rejects.toSatisfy((e) => e instanceof ApiError && e.code === 'conflict');
    const other = await roomyKey(t);
    await ask(other); // another key's undo is its own
    const held = gate();
    const running = worker({ batch: 3, afterBatch: held.wait }).drain();
    await held.arrived;
    const mid = await jobRow(job.id);
    expect(mid).toMatchObject({ status: 'running', reverted: 3, total: 8 });
    await expect(ask(key)).rejects.toSatisfy((e) => e instanceof ApiError && e.code === 'conflict');
    held.open();
    await running;
    await expectFinished(job, key, expected);
    await ask(key); // once it has ended, another may start
    await worker().drain();
  });

  it('a job whose process stopped mid-way is taken up once its claim runs out, and nothing is reverted twice', async () => {
    const { key, expected } = await scenario();
    const job = await ask(key);
    // Process A runs one batch, then hangs (as a process stopped by the OS would, its claim held).
    const hungA = gate();
    const a = worker({ batch: 1, leaseMs: 5_000, afterBatch: hungA.wait });
    const runningA = a.drain();
    await hungA.arrived;
    const afterA = await jobRow(job.id);
    expect(afterA).toMatchObject({ status: 'running', reverted: 1 });
    // While A's claim holds, nobody else takes the job.
    const early = worker({ batch: 1 });
    await early.drain();
    expect((await jobRow(job.id)).claim).toBe(afterA.claim);
    // Past its lease, process B claims it and carries on from the next change.
    t.clock.now += 6_000;
    const atB = gate();
    const runningB = worker({ batch: 2, afterBatch: atB.wait }).drain();
    await atB.arrived;
    const afterB = await jobRow(job.id);
    expect(afterB.claim).not.toBe(afterA.claim);
    expect(afterB.reverted).toBe(3);
    // A wakes up: its next batch finds the claim gone, and writes nothing.
    hungA.open();
    await runningA;
    expect(await jobRow(job.id)).toMatchObject({ reverted: 3, claim: afterB.claim });
    atB.open();
    await runningB;
    await expectFinished(job, key, expected);
  });

  it('a process that shuts down gives its job back between batches, and another finishes it at once', async () => {
    const { key, expected } = await scenario();
    const job = await ask(key);
    const held = gate();
    const a = worker({ batch: 2, afterBatch: held.wait });
    a.start();
    await held.arrived;
    const stopping = a.stop();
    held.open();
    await stopping;
    expect(await jobRow(job.id)).toMatchObject({ status: 'running', reverted: 2, claim: null, claimed_until: null });
    await worker().drain();
    await expectFinished(job, key, expected);
  });

  it('two processes working at once never run the same job: every change is reverted once', async () => {
    const runs = [await scenario(), await scenario(), await scenario()];
    const jobs = [];
    for (const r of runs) jobs.push(await ask(r.key));
    await Promise.all([worker({ batch: 1 }).drain(), worker({ batch: 1 }).drain()]);
    for (const [i, r] of runs.entries()) {
      const row = await jobRow(jobs[i]!.id);
      expect(row).toMatchObject({ status: 'done', reverted: r.expected.reverted });
      const reverts = await revertsOf(r.key);
      expect(reverts.size).toBe(r.expected.reverted);
      expect([...reverts.values()].every((n) => n === 1)).toBe(true);
    }
  });

  it('an ended job and what it skipped are kept a year, like the changes it undid; an open one stays', async () => {
    const start = t.clock.now;
    try {
      const { key } = await scenario();
      const ended = await ask(key);
      await worker().drain();
      const open = await ask(await roomyKey(t));
      const rowsOf = async (id: string) =>
        (await t.storage.db.selectFrom('undo_job_skips').select('seq').where('job_id', '=', id).execute()).length;
      expect(await rowsOf(ended.id)).toBe(2);
      t.clock.now += 365 * DAY_MS;
      await purgeUndoJobs(t.storage, t.clock.fn);
      expect((await jobRow(ended.id)).status).toBe('done');
      t.clock.now += 2 * DAY_MS;
      expect(await purgeUndoJobs(t.storage, t.clock.fn)).toBeGreaterThanOrEqual(3);
      expect(await t.storage.db.selectFrom('undo_jobs').select('id').where('id', '=', ended.id).execute()).toEqual([]);
      expect(await rowsOf(ended.id)).toBe(0);
      expect((await jobRow(open.id)).status).toBe('queued');
    } finally {
      t.clock.now = start;
    }
  });
});
