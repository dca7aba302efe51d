import { sameJson } from '../../lib/canonical-json.ts';
import type { ChangeInput } from '../changes/change.model.ts';

/**
 * A customer's changes in one write as the webhook event they make (DECISIONS "Webhooks"): its
 * type, and for an update the changed top-level fields as GET showed them just before.
 */
export type CustomerEventType = 'customer.created' | 'customer.updated' | 'customer.deleted';

export const CUSTOMER_EVENT_TYPES: readonly CustomerEventType[] = [
  'customer.created',
  'customer.updated',
  'customer.deleted',
];

export function customerEventType(changes: readonly ChangeInput[]): CustomerEventType {
  const actions = changes.map((c) => c.action);
  if (actions.includes('customer.delete')) return 'customer.deleted';
  // A restore brings back a customer receivers were told is gone.
  if (actions.includes('customer.create') || actions.includes('customer.restore')) return 'customer.created';
  return 'customer.updated';
}

/** What moves on every change, so is never a changed field (DECISIONS "Webhooks"). */
const EVERY_CHANGE = new Set(['updated_at', 'version']);

/**
 * `previous_attributes`: the top-level fields whose values differ between the record before
 * the write and after it, with their values before.
 */
export function previousAttributes(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(before))
    if (!EVERY_CHANGE.has(field) && !sameJson(value, after[field])) previous[field] = value;
  return previous;
}
