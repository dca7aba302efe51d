import type { Engine } from '../db/dialects/types.ts';
import type { Writer } from '../db/write.ts';
import type { Clock } from '../lib/time.ts';
import { signWebhook } from '../lib/webhook-signature.ts';
import {
  claimDue,
  recordAttempt,
  releaseClaims,
  type AttemptOutcome,
  type ClaimedDelivery,
} from '../resources/webhooks/webhook-delivery.repo.ts';
import { disableIfFailingSince, noteAttempt } from '../resources/webhooks/webhook-endpoint.repo.ts';
import { payloadFor } from '../resources/webhooks/webhook-payload.model.ts';
import { FAILING_DISABLE_MS } from '../resources/webhooks/webhook.model.ts';
import { emailKeyManagers, type MailSettings } from './pause-email.ts';
import { ATTEMPT_TIMEOUT_MS, postWebhook, type AttemptResult } from './webhook-sender.ts';

/**
 * The webhook delivery worker (DECISIONS "Webhooks"), one in every server process. All its
 * state is in the database: it claims due deliveries for a lease (on PostgreSQL with
 * `FOR UPDATE SKIP LOCKED`, so processes never take the same row), makes each attempt, and
 * records the outcome only while its lease holds, so every attempt is made by one process.
 * A process that dies leaves its claims to expire and be taken again; one that stops
 * finishes its attempts in flight and gives back what it had not started.
 *
 * Attempts run concurrently, at most `perEndpoint` to one endpoint, so a slow or dead
 * receiver holds up only its own queue, and none of it runs on a request's path.
 */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

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
  /** Each attempt's outcome, for /metrics. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
  /** How often due deliveries are looked for when nothing prompts it (ms). */
  pollMs?: number;
  /** Attempts in flight at once in this process. */
  slots?: number;
  /** Attempts in flight at once to one endpoint. */
  perEndpoint?: number;
  /** The attempt itself (tests replace it). */
  send?: typeof postWebhook;
}

/** A claim outlives the longest attempt, with room for writing its outcome. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 20_000;

export class WebhookDeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private filling: Promise<void> | null = null;
  private again = false;
  private stopping = false;

  constructor(private readonly deps: WebhookWorkerDeps) {}

  start(): void {
    if (this.timer) return;
    this.stopping = false;
    this.timer = setInterval(() => this.poke(), this.deps.pollMs ?? 1000).unref();
    this.poke();
  }

  /** Look for due deliveries now (a write that made some, a finished attempt). */
  poke(): void {
    if (this.stopping) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill()
      .catch((err) => this.deps.log?.warn({ err }, 'claiming webhook deliveries failed'))
      .finally(() => {
        this.filling = null;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  /** Claims and attempts until nothing is due and nothing is in flight (tests, and the CLI). */
  async drain(): Promise<void> {
    this.poke();
    for (;;) {
      // A finished attempt looks for more work, so both are waited for until neither is left.
      if (this.filling) await this.filling;
      else if (this.inFlight.size > 0) await Promise.all(this.inFlight.values());
      else return;
    }
  }

  /** Stops claiming; attempts in flight finish and are recorded. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.filling;
    await Promise.all(this.inFlight.values());
  }

  private async fill(): Promise<void> {
    const slots = this.deps.slots ?? 16;
    const cap = this.deps.perEndpoint ?? 4;
    const free = slots - this.inFlight.size;
    if (free <= 0) return;
    const busy = [...this.perEndpoint].filter(([, n]) => n >= cap).map(([id]) => id);
    const now = this.deps.clock();
    const lease = now + LEASE_MS;
    const claimed = await this.deps.store.write((tx) => claimDue(tx, this.deps.engine, now, lease, free, busy));
    const excess: string[] = [];
    for (const c of claimed) {
      const n = this.perEndpoint.get(c.endpoint.id) ?? 0;
      if (n >= cap || this.stopping) {
        excess.push(c.delivery.id);
        continue;
      }
      this.perEndpoint.set(c.endpoint.id, n + 1);
      const attempt = this.attempt(c, lease).finally(() => {
        this.inFlight.delete(c.delivery.id);
        const left = (this.perEndpoint.get(c.endpoint.id) ?? 1) - 1;
        if (left <= 0) this.perEndpoint.delete(c.endpoint.id);
        else this.perEndpoint.set(c.endpoint.id, left);
        this.poke();
      });
      this.inFlight.set(c.delivery.id, attempt);
    }
    if (excess.length > 0) await this.deps.store.write((tx) => releaseClaims(tx, excess, lease));
  }

  private async attempt(claimed: ClaimedDelivery, lease: number): Promise<void> {
    const { delivery, event, endpoint } = claimed;
    const now = this.deps.clock();
    let result: AttemptResult;
    if (endpoint.status !== 'enabled') {
      result = { ok: false, status: null, error: 'endpoint disabled' };
    } else {
      const body = payloadFor(event.payload, endpoint.contacts_masked === 1);
      const timestamp = Math.floor(now / 1000);
      const secrets = [endpoint.secret];
      if (endpoint.previous_secret && (endpoint.previous_secret_expires_at ?? 0) > now)
        secrets.push(endpoint.previous_secret);
      const headers = {
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secrets, event.id, timestamp, body),
        'content-type': 'application/json',
      };
      result = await (this.deps.send ?? postWebhook)(endpoint.url, body, headers, {
        allowPrivate: this.deps.allowPrivate,
      });
    }
    const done = this.deps.clock();
    const outcome = this.outcomeOf(delivery.attempts + 1, result, done);
    const disabled = await this.deps.store.write(async (tx) => {
      if (!(await recordAttempt(tx, delivery, lease, outcome, done))) return undefined;
      await noteAttempt(tx, endpoint.workspace_id, endpoint.id, result.ok, done);
      if (result.ok) return undefined;
      return disableIfFailingSince(
        tx,
        endpoint.workspace_id,
        endpoint.id,
        done - FAILING_DISABLE_MS,
        'every delivery failed for 3 days',
        done,
      );
    });
    this.deps.onOutcome?.(
      outcome.status === 'delivered' ? 'delivered' : outcome.status === 'failed' ? 'failed' : 'retrying',
    );
    if (disabled) await this.tellDisabled(disabled.workspace_id, disabled.id, disabled.url);
  }

  /** Delivered; or due again after the schedule's next step; or, past its last, failed. */
  private outcomeOf(attempts: number, result: AttemptResult, now: number): AttemptOutcome {
    if (result.ok) return { status: 'delivered', lastStatus: result.status, lastError: null, nextAttemptAt: null };
    const wait = this.deps.retrySchedule[attempts - 1];
    return wait === undefined
      ? { status: 'failed', lastStatus: result.status, lastError: result.error, nextAttemptAt: null }
      : { status: 'pending', lastStatus: result.status, lastError: result.error, nextAttemptAt: now + wait * 1000 };
  }

  private async tellDisabled(workspaceId: string, id: string, url: string): Promise<void> {
    this.deps.log?.info({ webhook: id }, 'webhook endpoint disabled: every delivery failed for 3 days');
    try {
      await emailKeyManagers(this.deps.store, this.deps.clock, this.deps.mail, workspaceId, (to) => ({
        to,
        subject: `Webhook endpoint ${url} was disabled`,
        text: [
          `Every delivery to the webhook endpoint ${url} (${id}) has failed for 3 days, so it was disabled.`,
          '',
          "Its deliveries are listed on its page in the workspace's developer settings (Webhooks).",
          `When the receiver works again, enable the endpoint there (or run: venue-api webhooks enable ${id})`,
          'and resend the deliveries it missed.',
        ].join('\n'),
      }));
    } catch (err) {
      this.deps.log?.warn({ err, webhook: id }, 'emailing about a disabled webhook endpoint failed');
    }
  }
}
