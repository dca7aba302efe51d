import type { Migration, MigrationProvider } from 'kysely';
import * as core from './001-core.ts';
import * as writes from './002-writes.ts';
import * as limits from './003-limits.ts';
import * as activity from './004-activity.ts';
import * as consoleTables from './005-console.ts';
import * as membershipReads from './006-membership-reads.ts';
import * as membershipCounts from './007-membership-counts.ts';
import * as membershipCountSwitch from './010-membership-count-switch.ts';
import * as webhooks from './011-webhooks.ts';
import * as audit from './012-audit.ts';
import * as keyActivityChecks from './013-key-activity-checks.ts';
import * as changeLogKeyOrder from './014-change-log-key-order.ts';
import * as undoJobs from './015-undo-jobs.ts';
import * as changeLogUndoIndex from './017-change-log-undo-index.ts';
import * as changeLogUnusedIndexes from './018-change-log-unused-indexes.ts';
import * as webhookEventsUnusedIndex from './019-webhook-events-unused-index.ts';
import * as changeLogEvents from './020-change-log-events.ts';
import * as plainOutbox from './021-plain-outbox.ts';
import * as eventFeed from './022-event-feed.ts';
import * as webhookWarning from './023-webhook-warning.ts';
import * as keyRollAndAddresses from './024-key-roll-and-addresses.ts';
import * as requestLog from './025-request-log.ts';
import * as eventTraceParent from './026-event-trace-parent.ts';

/** Migrations are listed here (not read from disk) so they run the same under tsx and tests. */
export const migrations: Record<string, Migration> = {
  '001-core': core,
  '002-writes': writes,
  '003-limits': limits,
  '004-activity': activity,
  '005-console': consoleTables,
  '006-membership-reads': membershipReads,
  '007-membership-counts': membershipCounts,
  '010-membership-count-switch': membershipCountSwitch,
  '011-webhooks': webhooks,
  '012-audit': audit,
  '013-key-activity-checks': keyActivityChecks,
  '014-change-log-key-order': changeLogKeyOrder,
  '015-undo-jobs': undoJobs,
  '017-change-log-undo-index': changeLogUndoIndex,
  '018-change-log-unused-indexes': changeLogUnusedIndexes,
  '019-webhook-events-unused-index': webhookEventsUnusedIndex,
  '020-change-log-events': changeLogEvents,
  '021-plain-outbox': plainOutbox,
  '022-event-feed': eventFeed,
  '023-webhook-warning': webhookWarning,
  '024-key-roll-and-addresses': keyRollAndAddresses,
  '025-request-log': requestLog,
  '026-event-trace-parent': eventTraceParent,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
