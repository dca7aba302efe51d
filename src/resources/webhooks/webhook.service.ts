import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import type { Db, Tx } from '../../db/schema.ts';
import type { Writer } from '../../db/write.ts';
import { conflict, invalid, notFound } from '../../errors.ts';
import { isIdOf, newId } from '../../lib/ids.ts';
import { type Clock, toInstant } from '../../lib/time.ts';
import { literalAddress, refusedAddress } from '../../lib/webhook-address.ts';
import type { AuditAction, AuditActor } from '../audit/audit.model.ts';
import { recordAudit } from '../audit/audit.service.ts';
import {
  deleteEndpoint as removeEndpoint,
  type EndpointKey,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  updateEndpoint,
} from './webhook-endpoint.repo.ts';
import { eventRow } from '../webhook-events/event.model.ts';
import { insertEventFor } from '../webhook-events/event.repo.ts';
import { outboxWritten } from '../webhook-events/outbox-signal.ts';
import { deliveryCounts, recentDeliveries, requeueDelivery, requeueFailedSince } from './webhook-outbox.repo.ts';
import { EVENT_TYPES } from '../webhook-events/event.schema.ts';
import { toDelivery, toEndpoint, type WebhookDelivery, type WebhookEndpoint, withHealth } from './webhook.model.ts';

// Webhook endpoints (DECISIONS "Webhooks"): made and managed by the console's key managers and by
// the operator's CLI, which names an endpoint by its id alone (`workspaceId` null).

/** At most this many endpoints a workspace (DECISIONS "Webhooks"). */
const MAX_ENDPOINTS = 16;
/** A rotated secret keeps signing beside the new one this long. */
const ROTATED_SECRET_MS = 24 * 3_600_000;

export interface WebhookPolicy {
  /** WEBHOOK_ALLOW_HTTP */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** DNS, replaceable in tests. */
  resolve?: (host: string) => Promise<string[]>;
}

interface CreateEndpointInput {
  workspaceId: string;
  url: string;
  mode: 'test' | 'live';
  events?: readonly string[];
  contactsMasked: boolean;
  /** Who made it: a staff member's email, or "operator CLI". */
  createdBy: string;
  /** Who acted, for the audit log (the console's person, the CLI's `--by`). */
  by?: AuditActor;
}

/** An endpoint change's audit entry, in its transaction, when an actor is named (docs/console.md "Audit log"). */
async function audit(
  tx: Tx,
  by: AuditActor | undefined,
  endpoint: EndpointKey,
  at: number,
  action: AuditAction,
  detail?: Record<string, unknown>,
): Promise<void> {
  if (by) await recordAudit(tx, { workspaceId: endpoint.workspace_id, at, by, action, target: endpoint.id, detail });
}

/** `whsec_` + base64 of 24 random bytes (the Standard Webhooks form). */
const newSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** The endpoint's event list, checked: `*` alone, or known types without repeats. */
function parseEventTypes(raw: readonly string[] | undefined): string[] | string {
  if (raw === undefined || raw.length === 0) return ['*'];
  const events = [...new Set(raw.map((e) => e.trim()).filter((e) => e !== ''))];
  if (events.includes('*')) return events.length === 1 ? ['*'] : 'events: "*" stands alone';
  const unknown = events.filter((e) => !EVENT_TYPES.includes(e) || e === 'webhook.test');
  if (unknown.length > 0) return `events: unknown type ${unknown.join(', ')}; known: ${EVENT_TYPES.join(', ')}`;
  return events;
}

const resolveAll = async (host: string) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

const badUrl = (why: string, message: string) => invalid(`url: ${why}`, [{ field: 'url', message }]);

/** The URL, checked: https (or http when allowed), no credentials, a host that resolves only to allowed addresses. */
export async function checkWebhookUrl(raw: string, policy: WebhookPolicy): Promise<string> {
  if (!URL.canParse(raw)) throw badUrl(`"${raw.slice(0, 200)}" is not an absolute URL`, 'must be an absolute URL');
  const url = new URL(raw);
  const schemes = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    throw badUrl(
      'webhooks are sent over https only; WEBHOOK_ALLOW_HTTP=on allows http:// (development), read from the environment of the process that makes the endpoint (the server for the console, your shell for the CLI)',
      'must start with https://',
    );
  if (url.username || url.password) throw badUrl('must not carry a user name or password', 'has credentials');
  if (raw.length > 2048) throw badUrl('at most 2048 characters', 'too long');
  // An address literal is judged as it is; a name by every address it resolves to.
  const literal = policy.allowPrivate ? null : literalAddress(url);
  const why = literal === null ? null : refusedAddress(literal);
  if (why) throw badUrl(`${literal} is not a public address (${why})`, 'not a public address');
  if (policy.allowPrivate || literal !== null) return url.toString();
  const addresses = await (policy.resolve ?? resolveAll)(url.hostname).catch(() => null);
  if (addresses === null) throw badUrl(`the host ${url.hostname} does not resolve`, 'host does not resolve');
  // The answer never names what the name resolved to: that would tell anyone who can make
  // an endpoint the addresses of the API's own network.
  if (addresses.some((address) => refusedAddress(address) !== null))
    throw badUrl(`the host ${url.hostname} resolves to a private address`, 'resolves to a private address');
  return url.toString();
}

export async function createEndpoint(store: Writer, clock: Clock, policy: WebhookPolicy, input: CreateEndpointInput) {
  const events = parseEventTypes(input.events);
  if (typeof events === 'string') throw invalid(events, [{ field: 'events', message: events }]);
  const url = await checkWebhookUrl(input.url, policy);
  const secret = newSigningSecret();
  const now = clock();
  const row = {
    id: newId('webhook'),
    workspace_id: input.workspaceId,
    mode: input.mode,
    url,
    events: JSON.stringify(events),
    contacts_masked: input.contactsMasked ? 1 : 0,
    status: 'enabled' as const,
    secret,
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    failing_warned_at: null,
    disabled_reason: null,
    created_at: now,
    created_by: input.createdBy,
    updated_at: now,
  };
  await store.write(async (tx) => {
    if ((await listEndpoints(tx, input.workspaceId)).length >= MAX_ENDPOINTS)
      throw conflict(`A workspace has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`);
    await insertEndpoint(tx, row);
    await audit(tx, input.by, row, now, 'webhook.created', { url, mode: input.mode, events });
  });
  return { endpoint: toEndpoint(row), secret };
}

/** The workspace's endpoints, newest first, each with how it is doing (the CLI lists the endpoints alone). */
export async function workspaceEndpoints(db: Db, workspaceId: string) {
  return (await listEndpoints(db, workspaceId)).map(withHealth);
}

/** One endpoint with how it is doing (the console's page of it). */
export async function endpointWithHealth(db: Db, workspaceId: string | null, id: string) {
  return withHealth(await existing(db, workspaceId, id));
}

async function existing(db: Db, workspaceId: string | null, id: string) {
  const row = isIdOf('webhook', id) ? await findEndpoint(db, workspaceId, id) : undefined;
  if (!row) throw notFound(`No webhook endpoint ${id.slice(0, 64)}.`);
  return row;
}

/** Enables or disables; either ends the record of failures (and its warning) that came before. */
export async function setEndpointStatus(
  store: Writer,
  clock: Clock,
  workspaceId: string | null,
  id: string,
  status: 'enabled' | 'disabled',
  by?: AuditActor,
): Promise<WebhookEndpoint> {
  const row = await existing(store.db, workspaceId, id);
  const set = {
    status,
    updated_at: clock(),
    failing_since: null,
    failing_warned_at: null,
    disabled_reason: status === 'disabled' ? 'disabled by a person' : null,
  };
  await store.write(async (tx) => {
    await updateEndpoint(tx, row, set);
    await audit(tx, by, row, set.updated_at, status === 'enabled' ? 'webhook.enabled' : 'webhook.disabled');
  });
  return toEndpoint({ ...row, ...set });
}

/** What deleting an endpoint takes with it: its deliveries, those still waiting never sent. */
export async function endpointDeletion(db: Db, workspaceId: string | null, id: string) {
  const row = await existing(db, workspaceId, id);
  return { endpoint: toEndpoint(row), ...(await deliveryCounts(db, row)) };
}

export async function deleteEndpoint(
  store: Writer,
  workspaceId: string | null,
  id: string,
  by?: AuditActor,
  clock: Clock = Date.now,
): Promise<WebhookEndpoint> {
  const row = await existing(store.db, workspaceId, id);
  await store.write(async (tx) => {
    await removeEndpoint(tx, row);
    await audit(tx, by, row, clock(), 'webhook.deleted', { url: row.url });
  });
  return toEndpoint(row);
}

/** A new secret, shown once; the old one keeps signing beside it for 24 hours. */
export async function rotateSecret(
  store: Writer,
  clock: Clock,
  workspaceId: string | null,
  id: string,
  by?: AuditActor,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const row = await existing(store.db, workspaceId, id);
  const secret = newSigningSecret();
  const now = clock();
  await store.write(async (tx) => {
    await updateEndpoint(tx, row, {
      secret,
      previous_secret: row.secret,
      previous_secret_expires_at: now + ROTATED_SECRET_MS,
      updated_at: now,
    });
    await audit(tx, by, row, now, 'webhook.secret_rotated');
  });
  return { endpoint: toEndpoint(row), secret };
}

/** The endpoint's 50 most recent deliveries, newest first. */
export async function endpointDeliveries(db: Db, workspaceId: string | null, id: string): Promise<WebhookDelivery[]> {
  const row = await existing(db, workspaceId, id);
  return (await recentDeliveries(db, row, 50)).map(toDelivery);
}

/** "Resend": the delivery is due again now, whatever it came to. */
export async function resendDelivery(
  store: Writer,
  clock: Clock,
  workspaceId: string | null,
  id: string,
  eventId: string,
): Promise<void> {
  const row = await existing(store.db, workspaceId, id);
  const found = await store.write((tx) => requeueDelivery(tx, row, eventId, clock()));
  if (!found) throw notFound(`No delivery of ${eventId.slice(0, 64)} to ${id}.`);
  outboxWritten();
}

/** "Resend failed deliveries since": one audit entry for the action, however many it resent; answers how many. */
export async function resendFailedSince(
  store: Writer,
  clock: Clock,
  workspaceId: string | null,
  id: string,
  since: number,
  by?: AuditActor,
): Promise<{ resent: number }> {
  const row = await existing(store.db, workspaceId, id);
  const now = clock();
  const resent = await store.write(async (tx) => {
    const resent = await requeueFailedSince(tx, row, since, now);
    await audit(tx, by, row, now, 'webhook.resent', { since: toInstant(since), resent });
    return resent;
  });
  if (resent > 0) outboxWritten();
  return { resent };
}

/** "Send test event": a `webhook.test` event to this endpoint alone. */
export async function sendTestEvent(store: Writer, clock: Clock, workspaceId: string | null, id: string) {
  const row = await existing(store.db, workspaceId, id);
  if (row.status !== 'enabled') throw conflict('The endpoint is disabled; enable it to send it events.');
  const at = clock();
  const scope = { workspaceId: row.workspace_id, livemode: row.mode === 'live' };
  const object = { id: row.id, object: 'webhook_endpoint', url: row.url };
  const event = eventRow(scope, { type: 'webhook.test', at, object });
  await store.write((tx) => insertEventFor(tx, event, row.id));
  outboxWritten();
}
