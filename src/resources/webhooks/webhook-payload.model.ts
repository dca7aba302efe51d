import { type EventShape, maskEvent } from '../../lib/mask.ts';

/**
 * What one endpoint is sent of an event (DECISIONS "Webhooks"): the stored, unmasked payload,
 * masked by lib/mask.ts for a `contacts_masked` endpoint, record and `previous_attributes` alike.
 */
export function payloadFor(payload: string, contactsMasked: boolean): string {
  if (!contactsMasked) return payload;
  return JSON.stringify(maskEvent(JSON.parse(payload) as EventShape));
}
