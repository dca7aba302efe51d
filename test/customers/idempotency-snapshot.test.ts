import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { personActor } from '../../src/resources/actor.model.ts';
import { createCustomer } from '../../src/resources/customers/customer.service.ts';
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
});
