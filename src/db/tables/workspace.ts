/**
 * The workspace, its staff and its API keys.
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
  /** The secret a roll replaced, and until when it works (024-key-roll-and-addresses). */
  previous_secret_hash?: string | null;
  previous_secret_expires_at?: number | null;
  /** JSON array of addresses and CIDR ranges the key may be used from; empty for anywhere. */
  allowed_ips?: string;
  created_by: string | null;
  agreed_by: string | null;
  agreed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface MetaTable {
  name: string;
  value: string;
}
