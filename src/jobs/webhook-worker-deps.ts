import type { Writer } from '../db/write.ts';
import type { Engine } from '../db/dialects/types.ts';
import type { Clock } from '../lib/time.ts';
import type { LoadGauge } from './event-loop-gauge.ts';
import type { MailSettings } from './mailer.ts';
import type { postWebhook } from './webhook-sender.ts';

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

/** What the webhook delivery worker (webhook-delivery.ts) is given; each of its parts reads the few it needs. */
export interface WebhookWorkerDeps {
  store: Writer;
  engine: Pick<Engine, 'claimRows' | 'maxInsertRows'>;
  clock: Clock;
  mail: MailSettings;
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** WEBHOOK_RETRY_SCHEDULE, in seconds. */
  retrySchedule: readonly number[];
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Each attempt's outcome once recorded, for /metrics. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
  /** The longest wait between looks for due deliveries when nothing prompts one (ms). */
  pollMs?: number;
  /** Attempts in flight at once in this process. */
  slots?: number;
  /** Attempts in flight at once to one endpoint. */
  perEndpoint?: number;
  /** The attempt itself (tests replace it). */
  send?: typeof postWebhook;
  /**
   * The server's requests come first: while this gauge says the process is busy, attempts
   * start at most `busyStartsPerSecond` a second, so a burst of writes with an endpoint
   * listening costs the API a small share of its CPU and the queue catches up once the load
   * eases (its depth and oldest age are in /metrics). Unset (tests, the CLI): no limit.
   */
  yieldTo?: LoadGauge;
  /** Attempts started a second while `yieldTo` says busy; BUSY_STARTS_PER_SECOND unset. */
  busyStartsPerSecond?: number;
}
