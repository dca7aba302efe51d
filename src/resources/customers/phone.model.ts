import { getCountries, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * Phone numbers (DECISIONS "Customers"): any readable number, parsed with the workspace's
 * default country (its first venue's country) into E.164; a number that cannot be a
 * phone number of any length is refused.
 */
export function toE164(raw: string, defaultCountry: CountryCode | null): string | null {
  const parsed = parsePhoneNumberFromString(raw, { ...(defaultCountry ? { defaultCountry } : {}), extract: false });
  return parsed?.isPossible() ? parsed.number : null;
}

const COUNTRIES = new Set<string>(getCountries());
let namesToCodes: Map<string, CountryCode> | null = null;

/** `AU`, `au` or `Australia` -> `AU`; anything else -> null (then only +… numbers parse). */
export function countryCode(raw: string | null | undefined): CountryCode | null {
  if (!raw) return null;
  const text = raw.trim();
  if (COUNTRIES.has(text.toUpperCase())) return text.toUpperCase() as CountryCode;
  if (!namesToCodes) {
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    namesToCodes = new Map(getCountries().map((c) => [(names.of(c) ?? c).toLowerCase(), c]));
  }
  return namesToCodes.get(text.toLowerCase()) ?? null;
}
