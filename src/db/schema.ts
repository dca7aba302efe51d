import type { Generated, Kysely, Transaction } from 'kysely';
import type {
  KeyActivityCheckTable,
  KeyActivityHourTable,
  KeyCustomerReadTable,
  LimitCounterTable,
  RequestLogTable,
} from './tables/activity.ts';
import type { ChangeLogTable, IdempotencyKeyTable, UndoJobSkipTable, UndoJobTable } from './tables/change.ts';
import type {
  AuditLogTable,
  ConsoleLockoutTable,
  ConsoleSessionTable,
  ConsoleSignInFailureTable,
  OutboxTable,
  StaffInvitationTable,
} from './tables/console.ts';
import type {
  CustomerListTable,
  CustomerTable,
  CustomerTagTable,
  ListTable,
  MembershipCountColumns,
  TagTable,
} from './tables/customer.ts';
import type { BookingTable, DocColumns, GiftCardTable, OrderTable, TicketTable } from './tables/platform-record.ts';
import type { WebhookDeliveryTable, WebhookEndpointTable, WebhookEventTable } from './tables/webhook.ts';
import type { ApiKeyTable, MetaTable, StaffTable, WorkspaceTable } from './tables/workspace.ts';

/**
 * The database as Kysely sees it: each table's shape lives in db/tables/, by what it holds.
 * Instants are integer milliseconds (see lib/time.ts); booleans are 0/1 integers so both
 * engines read them the same way.
 */
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
  request_log: RequestLogTable;
}
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the database or an open transaction: services take this (CONVENTIONS 3). */
export type Queryable = Kysely<Database>;
export type { Generated };
