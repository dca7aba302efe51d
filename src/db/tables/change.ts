/**
 * What a write leaves beside its change: the stored answer to its Idempotency-Key, its
 * change-log rows, and the undo jobs that revert them.
 */

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
