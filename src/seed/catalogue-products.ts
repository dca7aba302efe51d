import type { DocRecord } from '../db/doc-rows.ts';
import { newId } from '../lib/ids.ts';
import type { SeedProduct, SeedVenue } from './context.ts';
import { ACTIVITY_IDEAS, PACKAGE_IDEAS, type ActivityIdea, type PackageIdea } from './products.ts';
import type { CountryProfile } from './profiles.ts';
import { chance, int, sample } from './random.ts';
import type { SlugSet } from './slugs.ts';

/** Activities and packages (SPEC "Activity", "Package"), priced in the country's money. */
const price = (cents: number | null | undefined, factor: number) =>
  cents === null || cents === undefined ? null : Math.round((cents * factor) / 50) * 50;

function pricesOf(idea: ActivityIdea & { base?: number | null }, factor: number) {
  return {
    adult: idea.pricing === 'per_head' ? price(idea.adult, factor) : null,
    junior: idea.pricing === 'per_head' ? price(idea.junior, factor) : null,
    flat_rate: idea.pricing === 'flat_rate' ? price(idea.flat, factor) : null,
    base: price(idea.base, factor),
  };
}

/** Peak pricing (Friday evening and weekends) on about half of them: 20% more. */
function peakOf(prices: SeedProduct['prices']): SeedProduct['peak'] {
  if (!chance(0.5)) return null;
  const up = (v: number | null) => (v === null ? null : Math.round((v * 1.2) / 50) * 50);
  return { adult: up(prices.adult), junior: up(prices.junior), flat_rate: up(prices.flat_rate), base: up(prices.base) };
}

function venuesFor(venues: SeedVenue[]): string[] {
  if (venues.length < 2 || chance(0.6)) return [];
  return sample(venues, int(1, venues.length - 1)).map((v) => v.id);
}

function bookableData(idea: ActivityIdea, product: SeedProduct, slug: string, status: string, withBase: boolean) {
  const strip = ({ base, ...rest }: SeedProduct['prices']) => (withBase ? { ...rest, base } : rest);
  const junior = product.prices.junior !== null;
  return {
    name: idea.name,
    slug,
    description: idea.description,
    status,
    pricing_model: idea.pricing,
    prices: strip(product.prices),
    peak_prices: product.peak ? strip(product.peak) : null,
    guests: {
      min_adults: 1,
      max_adults: idea.maxGuests,
      min_juniors: 0,
      max_juniors: junior ? idea.maxGuests : 0,
      max_guests: idea.maxGuests,
    },
    staff_only: chance(0.1),
    venues: product.venueIds,
  };
}

function product(
  object: 'activity' | 'package',
  idea: ActivityIdea | PackageIdea,
  profile: CountryProfile,
  venues: SeedVenue[],
): SeedProduct {
  const prices = pricesOf(idea, profile.priceFactor);
  const deposit =
    'deposit' in idea && idea.deposit
      ? {
          type: idea.deposit.type,
          value: idea.deposit.type === 'fixed' ? price(idea.deposit.value, profile.priceFactor) : idea.deposit.value,
        }
      : null;
  return {
    object,
    id: newId(object),
    name: idea.name,
    pricing: idea.pricing,
    prices,
    peak: peakOf(prices),
    minutes: idea.minutes,
    maxGuests: idea.maxGuests,
    venueIds: venuesFor(venues),
    deposit,
  };
}

export function buildActivities(profile: CountryProfile, venues: SeedVenue[], slugs: SlugSet, at: () => number) {
  const ideas = sample(ACTIVITY_IDEAS, int(6, 8));
  const records: DocRecord[] = [];
  const sellable: SeedProduct[] = [];
  ideas.forEach((idea, i) => {
    const p = product('activity', idea, profile, venues);
    // The last one is retired: it exists (old bookings name it) but is no longer sold.
    const status = i === ideas.length - 1 ? 'archived' : 'active';
    if (status === 'active') sellable.push(p);
    const created = at();
    records.push({
      id: p.id,
      created_at: created,
      updated_at: created,
      data: bookableData(idea, p, slugs.take(idea.name), status, false),
    });
  });
  return { records, sellable };
}

function availability(idea: PackageIdea, now: number) {
  if (!idea.seasonal) return { available_from: null, available_until: null };
  const year = new Date(now).getUTCFullYear();
  return { available_from: `${year}-12-15`, available_until: `${year + 1}-01-31` };
}

export function buildPackages(
  profile: CountryProfile,
  venues: SeedVenue[],
  slugs: SlugSet,
  at: () => number,
  now: number,
) {
  const ideas = sample(PACKAGE_IDEAS, int(3, 5));
  const records: DocRecord[] = [];
  const sellable: SeedProduct[] = [];
  for (const idea of ideas) {
    const p = product('package', idea, profile, venues);
    // A seasonal package is only booked in its season; the seeder keeps it simple and doesn't.
    if (!idea.seasonal) sellable.push(p);
    const created = at();
    records.push({
      id: p.id,
      created_at: created,
      updated_at: created,
      data: {
        ...bookableData(idea, p, slugs.take(idea.name), 'active', true),
        duration_minutes: idea.minutes,
        deposit: p.deposit,
        ...availability(idea, now),
      },
    });
  }
  return { records, sellable };
}
