import { maskEmail, maskPhone } from '../../lib/mask.ts';

/**
 * What one endpoint is sent of an event: a `contacts_masked` endpoint gets emails and phones
 * masked exactly as a contacts-masked key sees them, in the record and in
 * `previous_attributes` alike (DECISIONS "Webhooks"). The stored payload is unmasked, so
 * masked and unmasked endpoints share one event.
 */
export function payloadFor(payload: string, contactsMasked: boolean): string {
  if (!contactsMasked) return payload;
  const event = JSON.parse(payload) as { data: { object?: unknown; previous_attributes?: unknown } };
  maskContacts(event.data.object);
  maskContacts(event.data.previous_attributes);
  return JSON.stringify(event);
}

function maskContacts(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  if (typeof record.email === 'string') record.email = maskEmail(record.email);
  if (typeof record.phone === 'string') record.phone = maskPhone(record.phone);
}
