import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { personActor } from '../../src/resources/actor.model.ts';
import { createCustomer, planCreateCustomer } from '../../src/resources/customers/customer.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import type { StoredAnswer } from '../../src/resources/writes/idempotency.model.ts';
import { answerRow, saveAnswer } from '../../src/resources/writes/idempotency.repo.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * write.pipeline.ts's claim takes the key's lock and reads its stored answer in one statement,
 * whose snapshot on PostgreSQL may predate the lock: another process's answer, committed in
 * between, goes unseen by it. Made to happen here: while the write runs, another connection
 * commits an answer under the same key. Storing this write's answer then meets the key's
 * primary key, the write rolls back and runs again, and answers the stored one.
 */
describe.runIf(ENGINES.includes('postgres'))('an answer stored after the claim read (postgres)', () => {
  let storage: TestStorage;
  let workspaceId: string;
  beforeAll(async () => {
    storage = await freshStorage('postgres');
    workspaceId = (await createWorkspace(storage, systemClock, { name: 'Snapshot' })).id;
  });
  afterAll(() => storage.drop());

  it('rolls the write back and replays the answer the other process stored', async () => {
    const actor = personActor('operator', 'tester', { workspaceId, livemode: true }, systemClock);
    const pipeline = storage.writes;
    const claim = { keyId: 'key_snapshot', key: 'k-1', workspaceId, fingerprint: 'f', requestId: 'req_mine' };
    const theirs: StoredAnswer = { status: 201, contentType: 'application/json', headers: {}, body: '{"theirs":true}' };
    let runs = 0;
    const answered = await pipeline.runIdempotent(
      actor,
      async (tx, a, body: { first_name: string }) => {
        runs++;
        // The other process: its transaction commits its answer while this one runs.
        if (runs === 1)
          await storage.db
            .transaction()
            .execute((other) =>
              saveAnswer(other, answerRow({ ...claim, requestId: 'req_theirs' }, theirs, Date.now())),
            );
        return createCustomer(tx, a, body);
      },
      { first_name: 'Twice' },
      {
        claim,
        answer: (value) => ({ status: 201, contentType: 'application/json', headers: {}, body: value.record.text }),
        refusal: () => {
          throw new Error('no refusal expected');
        },
      },
    );
    expect(runs).toBe(1);
    expect(answered).toEqual({ replayed: true, answer: theirs, originalRequestId: 'req_theirs' });
    const made = await storage.db.selectFrom('customers').select('id').where('first_name', '=', 'Twice').execute();
    expect(made).toEqual([]);
    const log = await storage.db
      .selectFrom('change_log')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .execute();
    expect(log).toEqual([]);
  });

  it('as one statement too: its stored answer waits on the other key, fails on it, and the replay follows', async () => {
    const actor = personActor('operator', 'tester', { workspaceId, livemode: true }, systemClock);
    const claim = { keyId: 'key_snapshot', key: 'k-2', workspaceId, fingerprint: 'f', requestId: 'req_mine' };
    const theirs: StoredAnswer = { status: 201, contentType: 'application/json', headers: {}, body: '{"theirs":2}' };
    // The other process has stored its answer in a transaction it has not committed yet.
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let inserted!: () => void;
    const holding = new Promise<void>((resolve) => (inserted = resolve));
    const other = storage.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      await saveAnswer(conn as never, answerRow({ ...claim, requestId: 'req_theirs' }, theirs, Date.now()));
      inserted();
      await committed;
      await sql`commit`.execute(conn);
    });
    await holding;
    const answering = storage.writes.runIdempotent(
      actor,
      createCustomer,
      { first_name: 'Thrice' },
      {
        claim,
        answer: (value) => ({ status: 201, contentType: 'application/json', headers: {}, body: value.record.text }),
        refusal: () => {
          throw new Error('no refusal expected');
        },
      },
      planCreateCustomer,
    );
    // The statement saw no answer and took the key's lock; its own answer waits on the other's row.
    const waiting = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from pg_locks where not granted`.execute(storage.db)).rows[0]!
        .n;
    for (let tries = 0; (await waiting()) === 0; tries++) {
      if (tries > 200) throw new Error('the statement never waited on the other answer');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    commit();
    await other;
    expect(await answering).toEqual({ replayed: true, answer: theirs, originalRequestId: 'req_theirs' });
    const made = await storage.db.selectFrom('customers').select('id').where('first_name', '=', 'Thrice').execute();
    expect(made).toEqual([]);
  });
});
