import { Webhook } from 'standardwebhooks';
import type { Engine } from '../db/dialects/types.ts';
import type { Tx } from '../db/schema.ts';
import type { Writer } from '../db/write.ts';
import { type EventShape, maskEvent } from '../lib/mask.ts';
import { OutageLog } from '../lib/outage-log.ts';
import type { Clock } from '../lib/time.ts';
import type { AuditActor } from '../resources/audit/audit.model.ts';
import { recordAudit } from '../resources/audit/audit.service.ts';
import { outbox } from '../resources/webhook-events/outbox-signal.ts';
import { disableIfFailingSince, noteAttempt, warnIfFailingSince } from '../resources/webhooks/webhook-endpoint.repo.ts';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDue,
  recordOutcome,
} from '../resources/webhooks/webhook-outbox.repo.ts';
import type { MailSettings } from './mailer.ts';
import { emailKeyManagers } from './pause-email.ts';
import { type FailingEndpoint, failingEndpointEmail } from './webhook-emails.ts';
import { ATTEMPT_TIMEOUT_MS, type AttemptResult, postWebhook } from './webhook-sender.ts';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { inSpan, traceHeaders } from '../lib/trace.ts';

// The webhook worker (DECISIONS "Webhooks"), one a process: it polls the outbox, claims due deliveries under a lease,
// sends each and records its outcome while the lease holds. An endpoint whose every attempt failed for a day gets its
// key managers warned, once; after 3 days it is disabled and they are emailed again.

export interface WebhookWorkerDeps {
  store: Writer;
  engine: Pick<Engine, 'claimRows'>;
  clock: Clock;
  mail: MailSettings;
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** WEBHOOK_RETRY_SCHEDULE, in seconds. */
  retrySchedule: readonly number[];
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Each recorded attempt: its outcome and how long the receiver took to answer (or to fail), in seconds. */
  onOutcome?: (outcome: 'delivered' | 'retrying' | 'failed', seconds: number) => void;
  /** The attempt itself (tests replace it). */
  send?: typeof postWebhook;
  pollMs?: number;
  /** Attempts in flight in this process, in all, to one endpoint, and for one workspace. */
  slots?: number;
  perEndpoint?: number;
  perWorkspace?: number;
}

/** A lease outlives the longest attempt, with room to record its outcome. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 20_000;

const FAILING_WARN_MS = 24 * 3_600_000;
const FAILING_DISABLE_MS = 3 * FAILING_WARN_MS;
const FAILING_REASON = 'every delivery failed for 3 days';
/** The disable is in the workspace's audit log as the service's own, as the activity check's pauses are. */
const HEALTH_ACTOR: AuditActor = { kind: 'system', name: 'webhook delivery' };

export class WebhookWorker {
  private unwatch: (() => void) | null = null;
  private running = false;
  private looking: Promise<unknown> | null = null;
  /** Whether a claim may find something: a write, the poll or a claim that left due deliveries behind says so. */
  private dueLikely = true;
  private lookAgain = false;
  /** The next claim looks past deliveries of full shares (the poll asks it, once a second). */
  private lookPast = true;
  private readonly inFlight = new Map<Promise<void>, ClaimedDelivery>();
  private readonly claims: OutageLog;

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.claims = new OutageLog(deps.log, 'claiming webhook deliveries');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const wake = () => {
      this.dueLikely = true;
      this.look();
    };
    outbox.on('written', wake);
    const timer = setInterval(() => {
      this.lookPast = true;
      wake();
    }, this.deps.pollMs ?? 1_000).unref();
    this.unwatch = () => {
      outbox.off('written', wake);
      clearInterval(timer);
    };
    wake();
  }

  /** One claim at a time: a look asked for during one follows it. */
  private look(): void {
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    this.lookAgain = false;
    this.looking = this.claimAndSend()
      .then(
        () => this.claims.succeeded(),
        (err) => this.claims.failed(err),
      )
      .finally(() => {
        this.looking = null;
        if (this.lookAgain && this.running) this.look();
      });
  }

  /** Claims and sends until nothing due is left and nothing is in flight (tests). */
  async drain(): Promise<void> {
    for (;;) {
      this.dueLikely = true;
      this.lookPast = true;
      const claimed = await this.claimAndSend();
      await this.settle();
      if (claimed === 0) return;
    }
  }

  /** Stops polling; attempts in flight finish and are recorded. */
  async stop(): Promise<void> {
    this.running = false;
    this.unwatch?.();
    this.unwatch = null;
    await this.looking;
    await this.settle();
  }

  private async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight.keys());
  }

  /**
   * One claim of what the free slots and shares allow, each attempt started; answers how many.
   * Claiming again before a slot frees or a write comes would only find the same rows held back.
   */
  private async claimAndSend(): Promise<number> {
    const { slots = 64, perEndpoint = 8, perWorkspace = Math.max(1, Math.floor(slots / 4)) } = this.deps;
    const total = slots - this.inFlight.size;
    if (total <= 0 || !this.dueLikely) return 0;
    // Cleared before the claim reads, so a write that commits meanwhile sets it again.
    this.dueLikely = false;
    const now = this.deps.clock();
    const lease = now + LEASE_MS;
    const lookPast = this.lookPast;
    this.lookPast = false;
    const room = { total, perEndpoint, perWorkspace, held: [...this.inFlight.values()], lookPast };
    const { claimed, exhausted } = await this.deps.store.write((tx) =>
      claimDue(tx, this.deps.engine, now, lease, room),
    );
    if (!exhausted) this.dueLikely = true;
    for (const delivery of claimed) {
      const attempt = this.attempt(delivery, lease).finally(() => {
        this.inFlight.delete(attempt);
        // A slot is free: what its share held back may go now (a look is cheap when nothing was).
        if (this.running) this.look();
      });
      this.inFlight.set(attempt, delivery);
    }
    return claimed.length;
  }

  private async attempt(claimed: ClaimedDelivery, lease: number): Promise<void> {
    const started = performance.now();
    // A child of the request that made the event (its traceparent is stored with it); the
    // receiver gets this attempt's traceparent.
    const attributes = { 'webhook.delivery': claimed.id, 'webhook.attempt': claimed.attempts + 1 };
    const result = await inSpan(
      'webhook attempt',
      { kind: SpanKind.CLIENT, traceParent: claimed.trace_parent, attributes },
      async (span) => {
        const sent = await this.send(claimed);
        if (sent.status !== null) span.setAttribute('http.response.status_code', sent.status);
        if (!sent.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: sent.error ?? `answered ${sent.status}` });
        return sent;
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const at = this.deps.clock();
    const outcome = outcomeOf(this.deps.retrySchedule, claimed.attempts + 1, result, at);
    try {
      const { recorded, failing } = await this.deps.store.write(async (tx) => {
        const recorded = await recordOutcome(tx, claimed.id, lease, outcome);
        return { recorded, failing: recorded ? await noteHealth(tx, claimed, result.ok, at) : null };
      });
      if (!recorded) return;
      this.deps.onOutcome?.(outcome.status === 'pending' ? 'retrying' : outcome.status, seconds);
      if (failing) await this.tell(claimed, failing);
    } catch (err) {
      // The lease runs out and the delivery is attempted again: at least once, as promised.
      this.deps.log?.warn({ err, delivery: claimed.id }, 'recording a webhook attempt failed');
    }
  }

  /** Tells the workspace's key managers; the warning or disable has committed, so a failed email is only logged. */
  private async tell({ workspace_id, endpoint_id: id, url }: ClaimedDelivery, failing: FailingEndpoint): Promise<void> {
    const { store, clock, mail, log } = this.deps;
    const what = failing.kind === 'disabled' ? `disabled: ${FAILING_REASON}` : 'failing for a day: warned';
    log?.info({ webhook: id }, `webhook endpoint ${what}`);
    const make = (to: string) => failingEndpointEmail(to, id, url, failing);
    await emailKeyManagers(store, clock, mail, workspace_id, make).catch((err) =>
      log?.warn({ err, webhook: id }, `emailing about a ${failing.kind} webhook endpoint failed`),
    );
  }

  /** One signed attempt (Standard Webhooks; a rotated secret signs beside the new one). */
  private async send(claimed: ClaimedDelivery): Promise<AttemptResult> {
    const now = this.deps.clock();
    const { event_id: id, payload } = claimed;
    // A `contacts_masked` endpoint is sent the stored payload masked, record and `previous_attributes` alike.
    const body = claimed.contacts_masked === 1 ? JSON.stringify(maskEvent(JSON.parse(payload) as EventShape)) : payload;
    const secrets = [claimed.secret];
    if (claimed.previous_secret && (claimed.previous_secret_expires_at ?? 0) > now)
      secrets.push(claimed.previous_secret);
    const timestamp = new Date(Math.floor(now / 1000) * 1000);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp.getTime() / 1000),
      'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, timestamp, body)).join(' '),
      'content-type': 'application/json',
      ...traceHeaders(),
    };
    const post = this.deps.send ?? postWebhook;
    try {
      return await post(claimed.url, body, headers, { allowPrivate: this.deps.allowPrivate });
    } catch (err) {
      return { ok: false, status: null, error: String((err as Error)?.message ?? err).slice(0, 500) };
    }
  }
}

/** Delivered; or due again after the schedule's next step; or, past its last, failed. */
function outcomeOf(schedule: readonly number[], attempts: number, result: AttemptResult, at: number): AttemptOutcome {
  const last = { last_status: result.status, last_error: result.error, updated_at: at };
  if (result.ok) return { ...last, status: 'delivered', last_error: null, next_attempt_at: null };
  const wait = schedule[attempts - 1];
  return wait === undefined
    ? { ...last, status: 'failed', next_attempt_at: null }
    : { ...last, status: 'pending', next_attempt_at: at + wait * 1000 };
}

/**
 * A recorded attempt ends or starts its endpoint's run of failures; a run of a day warns, one of 3 days disables
 * (with its audit entry), in the attempt's transaction, so each is decided once. Answers which, if either.
 */
async function noteHealth(tx: Tx, claimed: ClaimedDelivery, ok: boolean, at: number): Promise<FailingEndpoint | null> {
  const endpoint = { workspace_id: claimed.workspace_id, id: claimed.endpoint_id };
  await noteAttempt(tx, endpoint, ok, at);
  if (ok) return null;
  if (await disableIfFailingSince(tx, endpoint, at - FAILING_DISABLE_MS, FAILING_REASON, at)) {
    const { workspace_id: workspaceId, id } = endpoint;
    const detail = { reason: FAILING_REASON };
    await recordAudit(tx, { workspaceId, at, by: HEALTH_ACTOR, action: 'webhook.disabled', target: id, detail });
    return { kind: 'disabled' };
  }
  const since = await warnIfFailingSince(tx, endpoint, at - FAILING_WARN_MS, at);
  return since === null ? null : { kind: 'warned', since, disableAt: since + FAILING_DISABLE_MS };
}
