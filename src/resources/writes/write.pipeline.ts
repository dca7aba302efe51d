import type { Queryable, Tx } from '../../db/schema.ts';
import { lockKey } from '../../db/transaction-lock.ts';
import type { IdempotencyKeyTable } from '../../db/tables/change.ts';
import type { WebhookEventTable } from '../../db/tables/webhook.ts';
import { StaleWrite } from '../../db/stale-write.ts';
import type { EngineWriter } from '../../db/write.ts';
import { type ApiError, TransientConflict } from '../../errors.ts';
import type { Actor, Scope } from '../actor.model.ts';
import { type ChangeAuthor, type ChangeInput, type CustomerRecords, changeRow } from '../changes/change.model.ts';
import {
  type Answered,
  type IdempotencyClaim,
  replay,
  STILL_RUNNING,
  type StoredAnswer,
  storable,
} from './idempotency.model.ts';
import { answerRow, claimKey, dropStoredAnswer, isLive, saveAnswer, storing } from './idempotency.repo.ts';
import { type AtOnceClaim, type AtOnceFound, type AtOnceParts, PREVIOUS, RECORD } from './write-at-once.repo.ts';
import { writeTail } from './write-tail.repo.ts';

/**
 * The write pipeline (CONVENTIONS 5): a service's change, its change-log rows, its events and
 * a POST's stored answer in one transaction, run again on a lost race (StaleWrite).
 */

/** The events of a change, and what follows once they are durable: given where the storage is made (src/storage.ts). */
export interface ChangeHook {
  /** In the change's transaction (or before its one statement, given the records): the events its changes make. */
  events(
    tx: Queryable,
    scope: Scope,
    changes: readonly ChangeInput[],
    records?: CustomerRecords,
  ): Promise<WebhookEventTable[]>;
  /** Once a transaction whose events made deliveries is durable. */
  committed(): void;
}

/** What a write service answers: its value, and the changes it made for the change log. */
export interface Written<T> {
  value: T;
  changes: ChangeInput[];
  /** The customers as GET showed them before and after the write, where it has them: their webhook events'. */
  records?: CustomerRecords;
}

export type WriteService<I, T> = (tx: Tx, actor: Actor, input: I) => Promise<Written<T>>;

/**
 * A write whose change is one INSERT or UPDATE returning the record it wrote (a customer's
 * create, update), planned before it runs from what it reads outside any transaction:
 * PostgreSQL sends it with a POST's claim and its tail as one statement
 * (write-at-once.repo.ts), one round trip where the transaction takes five. An UPDATE is
 * guarded by the version it read: when it writes nothing, the row moved, and the write goes
 * the transaction's way, which waits for the row's lock.
 */
export interface PlannedWrite<T> {
  /** Runs the statement with the tail's rows. */
  run(db: Queryable, parts: AtOnceParts): Promise<AtOnceFound>;
  change: ChangeInput;
  /** An update's record before the change: its event's `previous_attributes` are what changed of it. */
  before?: string;
  /** The service's value from the record's text (RECORD before the statement runs). */
  value(record: string): T;
}

/** Plans the write, as the service would make it; null where it goes the transaction's way. */
export type PlanWrite<I, T> = (db: Queryable, actor: Actor, input: I) => Promise<PlannedWrite<T> | null>;

/** How an idempotent write's answers are rendered: inside its transaction, then stored as sent. */
export interface IdempotentWrite<T> {
  claim: IdempotencyClaim;
  /** The answer to the service's value. */
  answer(value: T): StoredAnswer;
  /** The answer to a refusal the request itself earned (a 404, a 409): kept like a success. */
  refusal(err: ApiError): StoredAnswer;
}

const ATTEMPTS = 5;

/** A writer that also has the write pipeline (src/storage.ts makes one). */
export interface PipelineWriter extends EngineWriter {
  readonly writes: WritePipeline;
}

/** A POST's answer, stored under its key with the write. */
interface AnswerToStore {
  claim: IdempotencyClaim;
  answer: StoredAnswer;
  now: number;
}

export class WritePipeline {
  /** Keys held by requests of this process; other processes are kept out by a transaction lock. */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly store: EngineWriter,
    private readonly hook: ChangeHook,
  ) {}

  /**
   * Runs a write in one transaction with its change-log rows, again on a lost race; durable
   * when it returns. Given a plan, PostgreSQL runs it as one statement where it can.
   */
  async run<I, T>(actor: Actor, service: WriteService<I, T>, input: I, plan?: PlanWrite<I, T>): Promise<T> {
    const planned = plan && this.store.engine.insertsInWith ? await plan(this.store.db, actor, input) : null;
    if (planned) {
      const found = await this.writeAtOnce(actor, planned, null);
      if (found.record !== undefined) return planned.value(found.record);
      // Without a claim, a statement that wrote nothing found its row moved since the plan read it:
      // the transaction's way waits for the row's lock instead of racing again.
    }
    const { value, hooked } = await this.retrying(() =>
      this.store.write(async (tx) => {
        const { value, changes, records } = await service(tx, actor, input);
        return { value, hooked: await this.finish(tx, actor, changes, records, null) };
      }),
    );
    if (hooked) this.hook.committed();
    return value;
  }

  /** For a writer with its own transactions (the import): call once one that logged changes is durable. */
  committed(): void {
    this.hook.committed();
  }

  /**
   * Change-log rows and events for changes a writer made in its own transaction (the
   * import's batches, which call `committed` once it is durable); answers whether they made deliveries.
   */
  async logChanges(
    tx: Tx,
    author: ChangeAuthor,
    changes: readonly ChangeInput[],
    records?: CustomerRecords,
  ): Promise<boolean> {
    return this.writeTail(tx, author, changes, records, null);
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
    plan?: PlanWrite<I, T>,
  ): Promise<Answered> {
    const { claim } = write;
    const lock = `idempotency\n${claim.keyId}\n${claim.key}`;
    if (this.inFlight.has(lock)) throw new TransientConflict(STILL_RUNNING);
    this.inFlight.add(lock);
    try {
      // A replay is found by the claim inside the transaction (one look-up, not one before
      // it and one in it); the write path answers once durable (DECISIONS "Durability").
      try {
        const once =
          plan && this.store.engine.insertsInWith ? await this.runAtOnce(actor, input, write, plan, lock) : null;
        if (once) return once;
        const outcome = await this.retrying(() =>
          this.store.write(async (tx) => {
            const stored = await this.claim(tx, claim, lock, actor.clock());
            if (stored) return { stored };
            const { value, changes, records } = await service(tx, actor, input);
            const answer = write.answer(value);
            const hooked = await this.finish(tx, actor, changes, records, { claim, answer, now: actor.clock() });
            return { answer, hooked };
          }),
        );
        if (outcome.stored) return replay(claim, outcome.stored);
        if (outcome.hooked) this.hook.committed();
        return { replayed: false, answer: outcome.answer };
      } catch (err) {
        if (!storable(err)) throw err;
        // The write rolled back; its refusal is stored on its own, under the same claim.
        const answer = write.refusal(err);
        const stored = await this.retrying(() =>
          this.store.write(async (tx) => {
            const found = await this.claim(tx, claim, lock, actor.clock());
            if (!found) await saveAnswer(tx, answerRow(claim, answer, actor.clock()));
            return found;
          }),
        );
        return stored ? replay(claim, stored) : { replayed: false, answer };
      }
    } finally {
      this.inFlight.delete(lock);
    }
  }

  /**
   * A POST's planned write as one statement (PostgreSQL); null for what it leaves to the
   * transaction's way: a refusal (an email taken, told and stored there), an answer over 24
   * hours old (dropped there), an answer that is not the record as written (a masked copy).
   */
  private async runAtOnce<I, T>(
    actor: Actor,
    input: I,
    write: IdempotentWrite<T>,
    plan: PlanWrite<I, T>,
    lock: string,
  ): Promise<Answered | null> {
    const planned = await plan(this.store.db, actor, input);
    if (!planned) return null;
    const { claim } = write;
    const template = write.answer(planned.value(RECORD));
    if (!template.body.includes(RECORD)) return null;
    const now = actor.clock();
    const held = { lock: lockKey(lock), keyId: claim.keyId, key: claim.key, answer: answerRow(claim, template, now) };
    const found = await this.retrying(() => storing(() => this.writeAtOnce(actor, planned, held)));
    if (!found.held) throw new TransientConflict(STILL_RUNNING);
    if (found.stored) return isLive(found.stored, now) ? replay(claim, found.stored) : null;
    if (found.record === undefined) return null;
    return { replayed: false, answer: write.answer(planned.value(found.record)) };
  }

  /**
   * The planned write's statement, with its tail: its change-log row and its event, made as the
   * transaction would. Durable once it returns, so the hook hears of its deliveries here.
   */
  private async writeAtOnce<T>(actor: Actor, planned: PlannedWrite<T>, claim: AtOnceClaim | null) {
    const { change, before } = planned;
    const shown = before === undefined ? { after: RECORD } : { after: RECORD, previous: PREVIOUS };
    const [event] = await this.hook.events(this.store.db, actor, [change], new Map([[change.customerId, shown]]));
    const parts: AtOnceParts = { claim, change: changeRow(actor, change), event, before: before ?? null };
    const found = await this.store.writeStatement((db) => planned.run(db, parts));
    if (found.deliveries > 0) this.hook.committed();
    return found;
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

  /** Every write's last step: its change-log rows, its events and a POST's stored answer. */
  private async finish(
    tx: Tx,
    actor: Actor,
    changes: ChangeInput[],
    records: CustomerRecords | undefined,
    stored: AnswerToStore | null,
  ): Promise<boolean> {
    const answer = stored && answerRow(stored.claim, stored.answer, stored.now);
    return this.writeTail(tx, actor, changes, records, answer);
  }

  /** Answers whether the events made deliveries. */
  private async writeTail(
    tx: Tx,
    author: ChangeAuthor,
    changes: readonly ChangeInput[],
    records: CustomerRecords | undefined,
    answer: IdempotencyKeyTable | null,
  ): Promise<boolean> {
    const events = changes.length > 0 ? await this.hook.events(tx, author, changes, records) : [];
    const rows = changes.map((change) => changeRow(author, change));
    return (await writeTail(tx, this.store.engine, { changes: rows, events, answer })) > 0;
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
