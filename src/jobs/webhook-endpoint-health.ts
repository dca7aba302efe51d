import type { Tx } from '../db/schema.ts';
import type { Writer } from '../db/write.ts';
import type { Clock } from '../lib/time.ts';
import type { AuditActor } from '../resources/audit/audit.model.ts';
import { recordAudit } from '../resources/audit/audit.service.ts';
import { disableIfFailingSince, type EndpointKey, noteAttempt } from '../resources/webhooks/webhook-endpoint.repo.ts';
import type { MailSettings } from './mailer.ts';
import { emailKeyManagers } from './pause-email.ts';

/** An endpoint's run of failures (DECISIONS "Webhooks"): after 3 days of nothing but failures it is disabled. */

const FAILING_DISABLE_MS = 3 * 24 * 3_600_000;
const FAILING_REASON = 'every delivery failed for 3 days';
/** The disable is in the workspace's audit log as the service's own, as the activity check's pauses are. */
const HEALTH_ACTOR: AuditActor = { kind: 'system', name: 'webhook delivery' };

/**
 * A recorded attempt ends or starts the endpoint's run of failures; a run of 3 days disables
 * the endpoint, with its audit entry in the same transaction. Answers whether it disabled it.
 */
export async function noteEndpointAttempt(tx: Tx, endpoint: EndpointKey, ok: boolean, at: number): Promise<boolean> {
  await noteAttempt(tx, endpoint, ok, at);
  if (ok) return false;
  const disabled = await disableIfFailingSince(tx, endpoint, at - FAILING_DISABLE_MS, FAILING_REASON, at);
  if (!disabled) return false;
  const { workspace_id: workspaceId, id } = endpoint;
  const detail = { reason: FAILING_REASON };
  await recordAudit(tx, { workspaceId, at, by: HEALTH_ACTOR, action: 'webhook.disabled', target: id, detail });
  return true;
}

/** Tells the workspace's key managers an endpoint was disabled; the disable has committed, so a failed email is only logged. */
export async function tellDisabled(
  deps: {
    store: Writer;
    clock: Clock;
    mail: MailSettings;
    log?: { warn(o: object, m: string): void; info(o: object, m: string): void };
  },
  endpoint: EndpointKey & { url: string },
): Promise<void> {
  const { id, url } = endpoint;
  deps.log?.info({ webhook: id }, 'webhook endpoint disabled: every delivery failed for 3 days');
  try {
    await emailKeyManagers(deps.store, deps.clock, deps.mail, endpoint.workspace_id, (to) => ({
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
    deps.log?.warn({ err, webhook: id }, 'emailing about a disabled webhook endpoint failed');
  }
}
