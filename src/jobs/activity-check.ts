import type { Engine } from '../db/dialects/types.ts';
import type { Writer } from '../db/write.ts';
import { DAY_MS, type Clock } from '../lib/time.ts';
import type { AuditActor } from '../resources/audit/audit.model.ts';
import { findKeyById } from '../resources/keys/key.repo.ts';
import { changeKeyStatus } from '../resources/keys/key.service.ts';
import type { KeyActivityCheckTable } from '../db/tables/activity.ts';
import {
  customerThreshold,
  judge,
  judgedHour,
  HISTORY_MS,
  requestThreshold,
  type KeyActivity,
  type Rule,
  type Verdict,
} from './activity-rules.ts';
import {
  claimHour,
  customersSentSince,
  liveActiveKeys,
  liveCustomerCounts,
  purgeActivity,
  recordChecks,
  requestsBetween,
  type CandidateKey,
} from './activity.repo.ts';
import type { MailSettings } from './mailer.ts';
import { notifyKeyPaused } from './pause-email.ts';

/**
 * The unusual-activity check (SPEC "Limits" 5, DECISIONS "Unusual activity"): judges every
 * live active key, pauses the unusual ones with their reason and time, and emails the
 * people who manage keys. Hourly inside the server and on demand from the CLI.
 */
const JOB_LOCK = 'activity-check';

export interface ActivityCheckDeps {
  store: Writer;
  engine: Engine;
  clock: Clock;
  mail: MailSettings;
  log?: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export interface PausedKey {
  key: string;
  workspace: string;
  name: string;
  rule: Rule;
  reason: string;
  paused_at: string;
  emails_sent: number;
  emails_kept: number;
}

export interface ActivityCheckResult {
  /** false: another process holds the check, or (hourly runs) this hour was already checked. */
  ran: boolean;
  checked_at: string;
  keys_checked: number;
  paused: PausedKey[];
}

const BATCH = 500;

/** A pause the check makes is in the workspace's audit log as the service's own. */
const CHECK_ACTOR: AuditActor = { kind: 'system', name: 'hourly activity check' };

async function judgeBatch(deps: ActivityCheckDeps, keys: CandidateKey[], now: number): Promise<PausedKey[]> {
  const ids = keys.map((k) => k.id);
  const hour = judgedHour(now);
  const { db } = deps.store;
  const [customers, workspaceCustomers, lastHour, history] = await Promise.all([
    customersSentSince(db, ids, now - DAY_MS),
    liveCustomerCounts(db, [...new Set(keys.map((k) => k.workspace_id))]),
    requestsBetween(db, ids, hour.from, hour.to),
    requestsBetween(db, ids, hour.from - HISTORY_MS, hour.from),
  ]);
  const judged: { key: CandidateKey; verdict: Verdict }[] = [];
  const seen: KeyActivityCheckTable[] = [];
  for (const key of keys) {
    const activity: KeyActivity = {
      createdAt: key.created_at,
      resumedAt: key.resumed_at,
      customersSent: customers.get(key.id) ?? 0,
      workspaceLiveCustomers: workspaceCustomers.get(key.workspace_id) ?? 0,
      lastHourRequests: lastHour.get(key.id) ?? 0,
      historyRequests: history.get(key.id) ?? 0,
    };
    const verdict = judge(activity, now);
    seen.push({
      key_id: key.id,
      hour_start: hour.from,
      workspace_id: key.workspace_id,
      requests: activity.lastHourRequests,
      request_threshold: requestThreshold(activity, now),
      customers_sent: activity.customersSent,
      customer_threshold: customerThreshold(activity.workspaceLiveCustomers),
      verdict: verdict?.rule ?? null,
    });
    if (verdict) judged.push({ key, verdict });
  }
  // What the check saw is kept for the key's page, the figure that paused a key among it.
  await deps.store.write((tx) => recordChecks(tx, deps.engine, seen));
  const paused: PausedKey[] = [];
  for (const { key, verdict } of judged) {
    // Re-read: a person may have paused, resumed or revoked it while we were counting.
    const current = await findKeyById(db, key.id);
    if (current?.status !== 'active') continue;
    const done = await changeKeyStatus(deps.store, deps.clock, key.id, 'pause', verdict.reason, CHECK_ACTOR);
    const pausedAt = done.pausedAt ?? now;
    const mailed = await notifyKeyPaused(deps.store, deps.clock, deps.mail, {
      workspaceId: key.workspace_id,
      keyId: key.id,
      keyName: key.name,
      reason: verdict.reason,
      pausedAt,
    });
    deps.log?.info({ key: key.id, rule: verdict.rule, ...mailed }, 'key paused for unusual activity');
    paused.push({
      key: key.id,
      workspace: key.workspace_id,
      name: key.name,
      rule: verdict.rule,
      reason: verdict.reason,
      paused_at: new Date(pausedAt).toISOString(),
      emails_sent: mailed.sent,
      emails_kept: mailed.kept,
    });
  }
  return paused;
}

async function check(deps: ActivityCheckDeps, now: number): Promise<ActivityCheckResult> {
  const keys = await liveActiveKeys(deps.store.db, now);
  const paused: PausedKey[] = [];
  for (let i = 0; i < keys.length; i += BATCH) paused.push(...(await judgeBatch(deps, keys.slice(i, i + BATCH), now)));
  await purgeActivity(deps.store, now);
  return { ran: true, checked_at: new Date(now).toISOString(), keys_checked: keys.length, paused };
}

/**
 * Runs the check under the engine's job lock, so two processes never run it at once.
 * `hourly` runs also claim the clock hour, so with several processes it runs once per hour
 * in total; on-demand runs (the CLI) skip that claim.
 */
export async function runActivityCheck(
  deps: ActivityCheckDeps,
  options: { hourly?: boolean } = {},
): Promise<ActivityCheckResult> {
  const now = deps.clock();
  const skipped: ActivityCheckResult = {
    ran: false,
    checked_at: new Date(now).toISOString(),
    keys_checked: 0,
    paused: [],
  };
  const outcome = await deps.engine.withJobLock(deps.store.db, JOB_LOCK, async () => {
    if (options.hourly && !(await deps.store.write((tx) => claimHour(tx, judgedHour(now).to)))) return skipped;
    return check(deps, now);
  });
  return outcome.ran && outcome.value ? outcome.value : skipped;
}
