/**
 * The console's sign-in, its audit log, invitations, and the emails it sends.
 */

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
