import type { Tx } from '../db/schema.ts';
import type { WebhookEndpointTable } from '../db/tables/webhook.ts';
import { groupBy } from '../lib/group-by.ts';
import type { AuditActor } from '../resources/audit/audit.model.ts';
import { recordAudit } from '../resources/audit/audit.service.ts';
import { disableIfFailingSince, noteAttempt } from '../resources/webhooks/webhook-endpoint.repo.ts';
import { FAILING_DISABLE_MS } from '../resources/webhooks/webhook.model.ts';
import { emailKeyManagers } from './pause-email.ts';
import type { Finished } from './webhook-attempt.ts';
import type { WebhookWorkerDeps } from './webhook-worker-deps.ts';

/** What recorded attempts mean for their endpoints' runs of failures; answers the endpoints they disabled. */
export async function noteEndpoints(tx: Tx, recorded: readonly Finished[]): Promise<WebhookEndpointTable[]> {
  const disabled: WebhookEndpointTable[] = [];
  // Endpoints in one order (their ids) in every transaction, so two never wait on each other.
  for (const own of byEndpoint(recorded)) {
    const gone = await noteEndpoint(tx, own);
    if (gone) disabled.push(gone);
  }
  return disabled;
}

/**
 * An endpoint's recorded attempts, in the order they ended, as one attempt at a time would
 * have left it: a success ends a run of failures, a failure starts one; the endpoint is
 * disabled when its run of failures has lasted 3 days. Answers the endpoint it disabled.
 */
async function noteEndpoint(tx: Tx, own: Finished[]): Promise<WebhookEndpointTable | undefined> {
  const { workspace_id: workspaceId, id } = own[0]!.claimed.endpoint;
  const last = own[own.length - 1]!;
  if (last.result.ok) {
    await noteAttempt(tx, workspaceId, id, true, last.at);
    return undefined;
  }
  let lastSuccess = own.length - 1;
  while (lastSuccess >= 0 && !own[lastSuccess]!.result.ok) lastSuccess--;
  // A success before the run of failures ended the run the endpoint had; the run starts anew.
  if (lastSuccess >= 0) await noteAttempt(tx, workspaceId, id, true, own[lastSuccess]!.at);
  await noteAttempt(tx, workspaceId, id, false, own[lastSuccess + 1]!.at);
  return disableFailing(tx, workspaceId, id, last.at);
}

const FAILING_REASON = 'every delivery failed for 3 days';
/** The disable is in the workspace's audit log as the service's own, as the activity check's pauses are. */
const HEALTH_ACTOR: AuditActor = { kind: 'system', name: 'webhook delivery' };

/** Disables the endpoint when its run of failures has lasted 3 days at `at`, with its audit entry in the same transaction. */
async function disableFailing(
  tx: Tx,
  workspaceId: string,
  id: string,
  at: number,
): Promise<WebhookEndpointTable | undefined> {
  const disabled = await disableIfFailingSince(tx, workspaceId, id, at - FAILING_DISABLE_MS, FAILING_REASON, at);
  if (disabled) {
    const detail = { reason: FAILING_REASON };
    await recordAudit(tx, { workspaceId, at, by: HEALTH_ACTOR, action: 'webhook.disabled', target: id, detail });
  }
  return disabled;
}

/** Attempts grouped by endpoint, each group in the order its attempts ended. */
function byEndpoint(finished: readonly Finished[]): Finished[][] {
  return [...groupBy(finished, (f) => f.claimed.endpoint.id).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, group]) => group);
}

/** Tells the workspace's key managers an endpoint was disabled; the disable has committed, so a failed email is only logged. */
export async function tellDisabled(
  deps: Pick<WebhookWorkerDeps, 'store' | 'clock' | 'mail' | 'log'>,
  workspaceId: string,
  id: string,
  url: string,
): Promise<void> {
  deps.log?.info({ webhook: id }, 'webhook endpoint disabled: every delivery failed for 3 days');
  try {
    await emailKeyManagers(deps.store, deps.clock, deps.mail, workspaceId, (to) => ({
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
