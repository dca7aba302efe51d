import { UNLOGGED, type Skip } from './undo-plan.model.ts';

/** Why an undo left a change alone, in words (the CLI and the console say it alike). */
const REASONS: Record<Skip['reason'], string> = {
  changed_since: 'changed later by someone else',
  later_change_kept: "the key's own later change to it was kept (not undone)",
  value_differs: 'no longer holds what the key wrote',
  customer_deleted: 'the customer is deleted',
  not_deleted: 'the customer is no longer deleted',
  email_taken: 'its email now belongs to another customer',
};

export function describeSkip(s: Skip): string {
  if (s.by === UNLOGGED) return 'changed later by a write that left no change-log entry';
  return `${REASONS[s.reason]}${s.by ? ` (${s.by})` : ''}`;
}
