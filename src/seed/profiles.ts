import { Faker, base, en, en_AU, en_GB, en_US } from '@faker-js/faker';
import { int, pick } from './random.ts';

/**
 * One country's worth of realism: where the venues are, their money and tax, and how
 * its people's names, addresses and phone numbers look. A workspace's venues all sit in
 * one country, because its default phone country is its first venue's (DECISIONS "Customers").
 */
export interface City {
  name: string;
  code: string;
  state: string;
  timezone: string;
}

export interface CountryProfile {
  country: string;
  currency: string;
  /** Sales tax included in prices, as a fraction (GST, VAT). */
  taxRate: number;
  /** Local prices relative to the Australian ones in products.ts. */
  priceFactor: number;
  cities: City[];
  faker: Faker;
  /** A possible mobile number in E.164. */
  mobile(): string;
  /** A possible landline number of that city in E.164. */
  landline(city: City): string;
}

const digits = (n: number) => Array.from({ length: n }, () => int(0, 9)).join('');

const AU_AREA: Record<string, string> = { NSW: '2', VIC: '3', QLD: '7', WA: '8', SA: '8' };

const PROFILES: Record<string, CountryProfile> = {
  AU: {
    country: 'AU',
    priceFactor: 1,
    currency: 'aud',
    taxRate: 0.1,
    cities: [
      { name: 'Sydney', code: 'SYD', state: 'NSW', timezone: 'Australia/Sydney' },
      { name: 'Melbourne', code: 'MEL', state: 'VIC', timezone: 'Australia/Melbourne' },
      { name: 'Brisbane', code: 'BNE', state: 'QLD', timezone: 'Australia/Brisbane' },
      { name: 'Perth', code: 'PER', state: 'WA', timezone: 'Australia/Perth' },
      { name: 'Adelaide', code: 'ADL', state: 'SA', timezone: 'Australia/Adelaide' },
    ],
    faker: new Faker({ locale: [en_AU, en, base] }),
    mobile: () => `+614${pick(['0', '1', '2', '3'])}${digits(7)}`,
    landline: (city) => `+61${AU_AREA[city.state] ?? '2'}9${digits(7)}`,
  },
  NZ: {
    country: 'NZ',
    priceFactor: 1.1,
    currency: 'nzd',
    taxRate: 0.15,
    cities: [
      { name: 'Auckland', code: 'AKL', state: 'Auckland', timezone: 'Pacific/Auckland' },
      { name: 'Wellington', code: 'WLG', state: 'Wellington', timezone: 'Pacific/Auckland' },
      { name: 'Christchurch', code: 'CHC', state: 'Canterbury', timezone: 'Pacific/Auckland' },
    ],
    faker: new Faker({ locale: [en_AU, en, base] }), // faker has no en_NZ; names and streets are alike
    mobile: () => `+6421${digits(7)}`,
    landline: (city) => `+64${city.code === 'AKL' ? '9' : city.code === 'WLG' ? '4' : '3'}${int(2, 9)}${digits(6)}`,
  },
  GB: {
    country: 'GB',
    priceFactor: 0.55,
    currency: 'gbp',
    taxRate: 0.2,
    cities: [
      { name: 'London', code: 'LON', state: 'England', timezone: 'Europe/London' },
      { name: 'Manchester', code: 'MAN', state: 'England', timezone: 'Europe/London' },
      { name: 'Edinburgh', code: 'EDI', state: 'Scotland', timezone: 'Europe/London' },
    ],
    faker: new Faker({ locale: [en_GB, en, base] }),
    mobile: () => `+447${pick(['4', '5', '8'])}${digits(8)}`,
    landline: (city) => (city.code === 'LON' ? `+44207${digits(7)}` : `+44161${int(2, 9)}${digits(6)}`),
  },
  US: {
    country: 'US',
    priceFactor: 0.7,
    currency: 'usd',
    taxRate: 0.08,
    cities: [
      { name: 'New York', code: 'NYC', state: 'NY', timezone: 'America/New_York' },
      { name: 'Chicago', code: 'CHI', state: 'IL', timezone: 'America/Chicago' },
      { name: 'Denver', code: 'DEN', state: 'CO', timezone: 'America/Denver' },
      { name: 'Los Angeles', code: 'LAX', state: 'CA', timezone: 'America/Los_Angeles' },
    ],
    faker: new Faker({ locale: [en_US, en, base] }),
    mobile: () => `+1${pick(['212', '312', '303', '213', '415', '646'])}${int(2, 9)}${digits(6)}`,
    landline: (city) =>
      `+1${{ NYC: '212', CHI: '312', DEN: '303', LAX: '213' }[city.code] ?? '212'}${int(2, 9)}${digits(6)}`,
  },
};

/** The profile of a country code already in use, or a random one for a new workspace. */
export function profileFor(country: string | null): CountryProfile {
  return (country && PROFILES[country]) || pick(Object.values(PROFILES));
}
