import { type EventShape, maskEvent } from '../../lib/mask.ts';

/**
 * What one endpoint is sent of an event: a `contacts_masked` endpoint gets emails and phones
 * masked exactly as a contacts-masked key sees them, wherever its record type keeps them, in
 * the record and in `previous_attributes` alike (DECISIONS "Webhooks", lib/mask.ts). The
 * stored payload is unmasked, so masked and unmasked endpoints share one event.
 */
export function payloadFor(payload: string, contactsMasked: boolean): string {
  if (!contactsMasked) return payload;
  return JSON.stringify(maskEvent(JSON.parse(payload) as EventShape));
}
