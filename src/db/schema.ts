import type { Generated, Kysely, Transaction } from 'kysely';

/**
 * Table shapes. Instants are integer milliseconds (see lib/time.ts); booleans are 0/1
 * integers so both engines read them the same way. Read-only collections the platform
 * owns (venues, bookings, orders, …) keep their record in `data` (JSON text) beside the
 * columns their filters and order need: one row fetch serves a record, no joins.
 */
export interface WorkspaceTable {
  id: string;
  name: string;
  limits: string; // JSON: overrides of the workspace's own limits
  created_at: number;
  updated_at: number;
}

export interface StaffTable {
  id: string;
  workspace_id: string;
  email: string;
  name: string;
  role: 'owner' | 'key_manager' | 'staff';
  password_hash: string | null;
  created_at: number;
  updated_at: number;
}

export interface ApiKeyTable {
  id: string;
  workspace_id: string;
  name: string;
  secret_hash: string;
  mode: 'test' | 'live';
  access: 'read' | 'read_write';
  kind: 'standard' | 'restricted';
  can_read: string; // JSON array
  can_write: string; // JSON array
  contacts_masked: number;
  expires_at: number | null;
  status: 'active' | 'paused' | 'revoked';
  paused_at: number | null;
  pause_reason: string | null;
  revoked_at: number | null;
  /** Set by a resume: activity before it is not held against the key (004-activity). */
  resumed_at?: number | null;
  /** The last request the key made, to the minute (005-console; the keys page shows it). */
  last_used_at?: number | null;
  limits: string; // JSON: per-key overrides
  created_by: string | null;
  agreed_by: string | null;
  agreed_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A record kept whole as JSON, with the columns its list needs. */
export interface DocColumns {
  id: string;
  workspace_id: string;
  created_at: number;
  updated_at: number;
  data: string;
}

export interface TagTable {
  id: string;
  workspace_id: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface ListTable {
  id: string;
  workspace_id: string;
  name: string;
  slug: string;
  description: string | null;
  kind: string | null;
  created_at: number;
  updated_at: number;
}

export interface CustomerTable {
  id: string;
  workspace_id: string;
  livemode: number;
  first_name: string;
  last_name: string | null;
  nickname: string | null;
  email: string | null;
  phone: string | null;
  date_of_birth: string | null;
  company: string | null;
  address_line1: string | null;
  address_line2: string | null;
  address_suburb: string | null;
  address_state: string | null;
  address_postcode: string | null;
  address_country: string | null;
  adult: number | null;
  marketing_consent: number;
  member: number;
  member_tier: string | null;
  gender: string | null;
  how_heard_about_us: string | null;
  version: number;
  /** The key that created the row (null for staff or import): DELETE /test-data needs it. */
  created_by_key_id: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/**
 * How many tags and lists a customer has, kept by triggers on customer_tags and
 * customer_lists (migration 007) so the reads skip the look-up for none. The application
 * never writes them; Generated keeps them out of every insert.
 */
export interface MembershipCountColumns {
  tag_count: Generated<number>;
  list_count: Generated<number>;
}

export interface CustomerTagTable {
  workspace_id: string;
  customer_id: string;
  tag_id: string;
  added_at: number | null;
  added_by_key_id: string | null;
}

export interface CustomerListTable {
  workspace_id: string;
  customer_id: string;
  list_id: string;
  status: 'active' | 'unsubscribed';
  added_at: number | null;
  unsubscribed_at: number | null;
  added_by_key_id: string | null;
}

export interface BookingTable extends DocColumns {
  livemode: number;
  venue_id: string | null;
  number: string;
  scheduled_at: number | null;
}

export interface OrderTable extends DocColumns {
  livemode: number;
  customer_id: string | null;
  booking_id: string | null;
  venue_id: string | null;
  number: string;
}

export interface TicketTable extends DocColumns {
  event_id: string | null;
  customer_id: string | null;
  order_id: string | null;
}

export interface GiftCardTable extends DocColumns {
  holder_id: string | null;
  buyer_id: string | null;
}

/** Requests of one live key in one clock hour (DECISIONS "Unusual activity"). */
export interface KeyActivityHourTable {
  key_id: string;
  hour_start: number;
  workspace_id: string;
  requests: number;
}

/** What one hourly check saw of one key (013-key-activity-checks). */
export interface KeyActivityCheckTable {
  key_id: string;
  hour_start: number;
  workspace_id: string;
  requests: number;
  request_threshold: number | null;
  customers_sent: number;
  customer_threshold: number | null;
  verdict: 'requests' | 'customers' | null;
}

/** When a customer was last sent to a live key. */
export interface KeyCustomerReadTable {
  key_id: string;
  customer_id: string;
  workspace_id: string;
  last_seen_at: number;
}

/** Emails kept for the console when SMTP is not configured or refused them. */
export interface OutboxTable {
  id: string;
  workspace_id: string;
  recipient: string;
  subject: string;
  body: string;
  error: string | null;
  created_at: number;
  /** 1 for an email only owners may read in the console: an invitation's link (012-audit). */
  owners_only?: number;
}

/** Daily counts of the in-process limit store (migration 003-limits). */
export interface LimitCounterTable {
  counter_id: string;
  window_start: number;
  count: number;
}

/** A stored answer to a POST, replayed for a retry with the same Idempotency-Key (002-writes). */
export interface IdempotencyKeyTable {
  key_id: string;
  idempotency_key: string;
  workspace_id: string;
  /** SHA-256 of method, path and the canonical JSON of the body. */
  fingerprint: string;
  status_code: number;
  content_type: string;
  headers: string; // JSON: headers replayed with the body (ETag)
  body: string;
  /** The request that made the answer: replays name it in `Original-Request`. */
  request_id: string;
  created_at: number;
}

/** One change to a customer, its tags or lists, with what it replaced (002-writes). */
export interface ChangeLogTable {
  id: string;
  workspace_id: string;
  livemode: number;
  at: number;
  actor_kind: 'key' | 'staff' | 'operator';
  actor_id: string;
  /** The key that made the change; null for staff and operators. */
  key_id: string | null;
  request_id: string | null;
  action: string;
  object: string;
  object_id: string;
  customer_version: number;
  before: string | null; // JSON: field -> value
  after: string | null;
  /** The change this one undid. */
  reverts: string | null;
  /**
   * The key whose change this one undid ('' when that was not a key's change or is gone);
   * null on every row that reverts nothing, and on undo rows a server older than
   * 017-change-log-undo-index wrote.
   */
  reverts_key_id: string | null;
  undone_at: number | null;
  undo_outcome: 'reverted' | 'partial' | 'skipped' | null;
}

/** A signed-in person (005-console): the cookie's token, hashed. */
export interface ConsoleSessionTable {
  token_hash: string;
  staff_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

export interface ConsoleSignInFailureTable {
  id: string;
  email: string;
  address: string;
  at: number;
}

export interface ConsoleLockoutTable {
  subject: string;
  until: number;
}

/** One person's action in a workspace (012-audit; docs/console.md "Audit log"). */
export interface AuditLogTable {
  id: string;
  workspace_id: string;
  at: number;
  actor_kind: 'staff' | 'operator' | 'system';
  actor_id: string | null;
  actor: string;
  source: 'console' | 'cli' | 'system';
  address: string | null;
  action: string;
  target: string | null;
  detail: string; // JSON object
}

/** An owner's invitation to join the workspace as staff (012-audit). */
export interface StaffInvitationTable {
  token_hash: string;
  workspace_id: string;
  email: string;
  role: 'owner' | 'key_manager' | 'staff';
  invited_by: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
}

/** A webhook endpoint (011-webhooks, DECISIONS "Webhooks"). */
export interface WebhookEndpointTable {
  id: string;
  workspace_id: string;
  mode: 'test' | 'live';
  url: string;
  events: string; // JSON: ["*"] or a list of types
  contacts_masked: number;
  status: 'enabled' | 'disabled';
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  disabled_reason: string | null;
  created_at: number;
  created_by: string;
  updated_at: number;
}

/** An event of the outbox, written with the change it describes (011-webhooks). */
export interface WebhookEventTable {
  id: string;
  workspace_id: string;
  livemode: number;
  type: string;
  payload: string;
  created_at: number;
}

/** One event to one endpoint: its attempts so far and the next (011-webhooks). */
export interface WebhookDeliveryTable {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  /** A worker holds the delivery until then; past it, another may claim it. */
  claimed_until: number | null;
  created_at: number;
  updated_at: number;
}

/** An undo of a key's changes asked for in the console, and its progress (015-undo-jobs). */
export interface UndoJobTable {
  id: string;
  workspace_id: string;
  key_id: string;
  requested_by_kind: 'staff' | 'operator';
  requested_by: string;
  /** JSON: the AuditActor who asked. */
  audit_actor: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  total: number;
  /** It undoes the key's changes made at or before this instant. */
  until: number;
  reverted: number;
  skipped: number;
  skip_rows: number;
  error: string | null;
  /** The token of the process running it, and until when that claim holds. */
  claim: string | null;
  claimed_until: number | null;
  created_at: number;
  started_at: number | null;
  updated_at: number;
  finished_at: number | null;
}

/** A change (or one field of it) an undo job left as it was, and why. */
export interface UndoJobSkipTable {
  job_id: string;
  seq: number;
  change_id: string;
  action: string;
  customer_id: string;
  field: string | null;
  reason: string;
  by: string | null;
}

export interface MetaTable {
  name: string;
  value: string;
}

export interface Database {
  workspaces: WorkspaceTable;
  staff: StaffTable;
  api_keys: ApiKeyTable;
  venues: DocColumns;
  activities: DocColumns;
  packages: DocColumns;
  events: DocColumns;
  tags: TagTable;
  lists: ListTable;
  customers: CustomerTable & MembershipCountColumns;
  customer_tags: CustomerTagTable;
  customer_lists: CustomerListTable;
  bookings: BookingTable;
  orders: OrderTable;
  tickets: TicketTable;
  gift_cards: GiftCardTable;
  meta: MetaTable;
  idempotency_keys: IdempotencyKeyTable;
  change_log: ChangeLogTable;
  limit_counters: LimitCounterTable;
  key_activity_hours: KeyActivityHourTable;
  key_customer_reads: KeyCustomerReadTable;
  key_activity_checks: KeyActivityCheckTable;
  outbox: OutboxTable;
  console_sessions: ConsoleSessionTable;
  console_sign_in_failures: ConsoleSignInFailureTable;
  console_lockouts: ConsoleLockoutTable;
  audit_log: AuditLogTable;
  staff_invitations: StaffInvitationTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_events: WebhookEventTable;
  webhook_deliveries: WebhookDeliveryTable;
  undo_jobs: UndoJobTable;
  undo_job_skips: UndoJobSkipTable;
}

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the database or an open transaction: services take this (CONVENTIONS 3). */
export type Queryable = Kysely<Database>;
export type { Generated };
