import type { Transaction } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import type { Database } from '../../db/schema.ts';
import type { IdempotencyKeyTable } from '../../db/tables/change.ts';
import { StaleWrite } from '../../db/stale-write.ts';
import type { Writer } from '../../db/write.ts';
import { ApiError, TransientConflict } from '../../errors.ts';
import type { Actor } from '../actor.model.ts';
import { changeRow, type ChangeInput } from '../changes/change.model.ts';
import { setChangeEvents } from '../changes/change-log.repo.ts';
import { putCustomerEvents, takesCustomerEvents } from '../webhooks/customer-event.service.ts';
import { CUSTOMER_EVENT_TYPES, type CustomerRecords } from '../webhooks/customer-event.model.ts';
import { endpointsFor } from '../webhooks/webhook-event.service.ts';
import { EventsTaken } from './events-taken.model.ts';
import type { IdempotencyClaim, StoredAnswer } from './idempotency.model.ts';
import { claimKey, dropStoredAnswer, isLive, saveAnswer } from './idempotency.repo.ts';
import { tailReadsEndpoints, writeTail, type AnswerToStore } from './write-tail.repo.ts';

/**
 * The one way a write happens (CONVENTIONS 5): one transaction holding the change, its
 * change-log rows, its webhook events and, for a POST, the claim on its Idempotency-Key and the answer stored
 * for it, so a crash leaves all or nothing; run again on fresh reads when a concurrent
 * write won a race on the same customer (StaleWrite). A service is a plain function of
 * (transaction, actor, input) and knows nothing of keys, replies or HTTP.
 */
export type Tx = Transaction<Database>;

/** What a write service answers: its value, and the changes it made for the change log. */
export interface Written<T> {
  value: T;
  changes: ChangeInput[];
  /** The customers as GET showed them before and after the write, where it has them: their webhook events'. */
  records?: CustomerRecords;
}

export type WriteService<I, T> = (tx: Tx, actor: Actor, input: I) => Promise<Written<T>>;

/** How an idempotent write's answers are rendered: inside its transaction, then stored as sent. */
export interface IdempotentWrite<T> {
  claim: IdempotencyClaim;
  /** The answer to the service's value. */
  answer(value: T): StoredAnswer;
  /** The answer to a refusal the request itself earned (a 404, a 409): kept like a success. */
  refusal(err: ApiError): StoredAnswer;
}

/** A write's answer: made now, or replayed from the first request with the same key. */
export type Answered =
  | { replayed: false; answer: StoredAnswer }
  | { replayed: true; answer: StoredAnswer; originalRequestId: string };

const ATTEMPTS = 5;
const STILL_RUNNING = 'A request with this Idempotency-Key is still running; retry after it has been answered.';

/** Which failures are the request's own answer (DECISIONS "Idempotency"): not validation, not transient. */
function storable(err: unknown): err is ApiError {
  if (!(err instanceof ApiError) || err instanceof TransientConflict) return false;
  return err.status >= 400 && err.status < 500 && err.code !== 'invalid_request';
}

function replay(claim: IdempotencyClaim, row: IdempotencyKeyTable): Answered {
  if (row.fingerprint !== claim.fingerprint) {
    throw new ApiError(
      'idempotency_mismatch',
      'This Idempotency-Key was used for another request (method, path or body); use a new key for a new request.',
    );
  }
  const answer: StoredAnswer = {
    status: row.status_code,
    contentType: row.content_type,
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: row.body,
  };
  return { replayed: true, answer, originalRequestId: row.request_id };
}

export class WritePipeline {
  /** Keys held by requests of this process; other processes are kept out by a transaction lock. */
  private readonly inFlight = new Set<string>();
  private readonly eventsTaken = new EventsTaken();

  constructor(
    private readonly store: Writer,
    private readonly engine: Engine,
  ) {}

  /** Runs a write in one transaction with its change-log rows, again on a lost race; durable when it returns. */
  async run<I, T>(actor: Actor, service: WriteService<I, T>, input: I): Promise<T> {
    return this.retrying(() => this.store.write((tx) => this.apply(tx, actor, service, input)));
  }

  /**
   * A POST (SPEC "Rules common to all endpoints" 4, DECISIONS "Idempotency"): the first
   * request with a key runs and its answer is stored in the write's own transaction; a
   * later one gets that answer again; one that comes while the first runs is a 409.
   */
  async runIdempotent<I, T>(
    actor: Actor,
    service: WriteService<I, T>,
    input: I,
    write: IdempotentWrite<T>,
  ): Promise<Answered> {
    const { claim } = write;
    const lock = `idempotency\n${claim.keyId}\n${claim.key}`;
    if (this.inFlight.has(lock)) throw new TransientConflict(STILL_RUNNING);
    this.inFlight.add(lock);
    try {
      // A replay is found by the claim inside the transaction (one look-up, not one before
      // it and one in it); the write path answers once durable (DECISIONS "Durability").
      try {
        const outcome = await this.retrying(() =>
          this.store.write(async (tx) => {
            const stored = await this.claim(tx, claim, lock, actor.clock());
            if (stored) return { stored };
            const { value, changes, records } = await service(tx, actor, input);
            const answer = write.answer(value);
            await this.finish(tx, actor, changes, records, { claim, answer, now: actor.clock() });
            return { answer };
          }),
        );
        return outcome.stored ? replay(claim, outcome.stored) : { replayed: false, answer: outcome.answer };
      } catch (err) {
        if (!storable(err)) throw err;
        // The write rolled back; its refusal is stored on its own, under the same claim.
        const answer = write.refusal(err);
        const stored = await this.retrying(() =>
          this.store.write(async (tx) => {
            const found = await this.claim(tx, claim, lock, actor.clock());
            if (!found) await saveAnswer(tx, claim, answer, actor.clock());
            return found;
          }),
        );
        return stored ? replay(claim, stored) : { replayed: false, answer };
      }
    } finally {
      this.inFlight.delete(lock);
    }
  }

  /** Holds the key for this transaction; answers what another process stored meanwhile. */
  private async claim(
    tx: Tx,
    claim: IdempotencyClaim,
    lock: string,
    now: number,
  ): Promise<IdempotencyKeyTable | undefined> {
    const { held, stored } = await claimKey(tx, claim, lock);
    if (!held) throw new TransientConflict(STILL_RUNNING);
    if (!stored || isLive(stored, now)) return stored;
    // Over 24 hours old: it no longer counts, and the new answer takes its place.
    await dropStoredAnswer(tx, claim);
    return undefined;
  }

  private async apply<I, T>(tx: Tx, actor: Actor, service: WriteService<I, T>, input: I): Promise<T> {
    const { value, changes, records } = await service(tx, actor, input);
    await this.finish(tx, actor, changes, records, null);
    return value;
  }

  /**
   * Every write's last step: its change-log rows, each customer's webhook event in its last
   * row when an enabled endpoint of the scope takes customer events, and a POST's stored
   * answer (write-tail.repo.ts). Where that is one statement that also reads the endpoints
   * (PostgreSQL, a write of one change), the events are made before it when the scope's
   * endpoints took them at its last write in this process, and an UPDATE puts them in or
   * takes them out in the rare write that guess misses; otherwise the endpoints are read first.
   */
  private async finish(
    tx: Tx,
    actor: Actor,
    changes: ChangeInput[],
    records: CustomerRecords | undefined,
    stored: AnswerToStore | null,
  ): Promise<void> {
    const rows = changes.map((change) => changeRow(actor, change));
    const oneStatement = tailReadsEndpoints(this.engine, rows);
    const making = oneStatement
      ? this.eventsTaken.likely(actor)
      : rows.length > 0 && (await endpointsFor(tx, actor, CUSTOMER_EVENT_TYPES)).length > 0;
    if (making) await putCustomerEvents(tx, actor, changes, rows, records);
    const found = await writeTail(tx, this.engine, actor, rows, stored);
    if (!found) return;
    this.eventsTaken.note(actor, found);
    // A guess missed: the events go in after all, or come out again.
    if (takesCustomerEvents(found) === making) return;
    const had = rows.some((row) => row.event != null);
    if (making) for (const row of rows) row.event = null;
    else await putCustomerEvents(tx, actor, changes, rows, records);
    if (had || rows.some((row) => row.event != null)) await setChangeEvents(tx, rows);
  }

  private async retrying<R>(attempt: () => Promise<R>): Promise<R> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (!(err instanceof StaleWrite)) throw err;
        if (n >= ATTEMPTS) throw new TransientConflict('The customer kept changing while this request ran; retry it.');
      }
    }
  }
}
