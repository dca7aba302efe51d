/**
 * The audit trail's vocabulary (docs/console.md "Audit log"): who acted, from where, and
 * the actions people take on keys, undo, staff and sign-in. `webhook.*` is reserved for the
 * webhook endpoints' actions (created, disabled, enabled, deleted, secret rotated, failed
 * deliveries resent since an instant).
 */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.paused',
  'key.resumed',
  'key.revoked',
  'key.rolled',
  'key.addresses_set',
  'undo.run',
  'staff.added',
  'staff.invited',
  'staff.joined',
  'staff.role_changed',
  'staff.removed',
  'staff.password_set',
  'sign_in.succeeded',
  'sign_in.failed',
  'webhook.created',
  'webhook.disabled',
  'webhook.enabled',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.resent',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who acted: a signed-in staff member (console, with the request's address), an operator at
 * the CLI (`--by`, else the OS user), or a job of the service itself (the hourly check).
 */
export type AuditActor =
  | { kind: 'staff'; staffId: string; email: string; address: string | null }
  | { kind: 'operator'; name: string }
  | { kind: 'system'; name: string };

export interface AuditEntry {
  workspaceId: string;
  at: number;
  by: AuditActor;
  action: AuditAction;
  /** The id acted on: a key, a staff member, an invitation's email, a webhook endpoint. */
  target: string | null;
  /** A few facts worth keeping (a pause reason, a role's old and new value); never a secret. */
  detail?: Record<string, unknown>;
}

/** One entry as the audit page shows it. */
export interface AuditRecord {
  id: string;
  at: number;
  actorKind: AuditActor['kind'];
  actor: string;
  source: 'console' | 'cli' | 'system';
  address: string | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
}

export const SOURCE_OF: Record<AuditActor['kind'], AuditRecord['source']> = {
  staff: 'console',
  operator: 'cli',
  system: 'system',
};

export function actorLabel(by: AuditActor): string {
  return by.kind === 'staff' ? by.email : by.name;
}

/** Detail is kept small: a pasted novel in a pause reason is cut, not stored whole. */
export const MAX_DETAIL_CHARS = 2_000;
