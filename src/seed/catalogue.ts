import type { DocRecord } from '../db/doc-rows.ts';
import type { ListTable, TagTable } from '../db/tables/customer.ts';
import { newId } from '../lib/ids.ts';
import { buildEvents } from './catalogue-events.ts';
import { buildActivities, buildPackages } from './catalogue-products.ts';
import type { Catalogue, SeedVenue } from './context.ts';
import { BRANDS, LIST_IDEAS, TAG_NAMES } from './products.ts';
import type { CountryProfile } from './profiles.ts';
import { int, pick, sample } from './random.ts';
import { SlugSet } from './slugs.ts';
import { HOUR_MS, type Sequence } from './timeline.ts';

/**
 * The things every booking and order points at: venues, activities, packages, events
 * with dates, tags and lists. Each run adds its own venues and products; tags and lists
 * are a workspace's vocabulary, so a name already there is reused rather than repeated.
 */
export interface ExistingCatalogue {
  tags: Map<string, string>;
  lists: Map<string, string>;
  slugs: { venues: string[]; activities: string[]; packages: string[]; events: string[]; lists: string[] };
}

export interface CatalogueRows {
  catalogue: Catalogue;
  docs: { venues: DocRecord[]; activities: DocRecord[]; packages: DocRecord[]; events: DocRecord[] };
  tags: TagTable[];
  lists: ListTable[];
}

function buildVenues(profile: CountryProfile, slugs: SlugSet, at: () => number) {
  const brand = pick(BRANDS);
  const venues: SeedVenue[] = [];
  const records: DocRecord[] = [];
  const f = profile.faker;
  for (const city of sample(profile.cities, int(2, 3))) {
    const venue: SeedVenue = {
      id: newId('venue'),
      name: `${brand} ${city.name}`,
      code: city.code,
      timezone: city.timezone,
      city,
    };
    venues.push(venue);
    const created = at();
    const slug = slugs.take(venue.name);
    records.push({
      id: venue.id,
      created_at: created,
      updated_at: created,
      data: {
        name: venue.name,
        slug,
        booking_code: city.code,
        timezone: city.timezone,
        currency: profile.currency,
        address: {
          line1: f.location.streetAddress(),
          city: city.name,
          state: city.state,
          postal_code: f.location.zipCode(profile.country === 'US' ? '#####' : undefined),
          country: profile.country,
        },
        phone: profile.landline(city),
        email: `${slug.replace(/-\d+$/, '')}@example.com`,
        active: true,
      },
    });
  }
  return { venues, records };
}

/** Tags by name: an existing one is reused, so seeding twice does not list "VIP" twice. */
function buildTags(workspaceId: string, existing: Map<string, string>, at: () => number) {
  const rows: TagTable[] = [];
  const ids = sample(TAG_NAMES, int(8, 10)).map((name) => {
    const known = existing.get(name);
    if (known) return known;
    const created = at();
    rows.push({ id: newId('tag'), workspace_id: workspaceId, name, created_at: created, updated_at: created });
    return rows[rows.length - 1]!.id;
  });
  return { ids, rows };
}

function buildLists(workspaceId: string, existing: Map<string, string>, slugs: SlugSet, at: () => number) {
  const rows: ListTable[] = [];
  const ids = sample(LIST_IDEAS, int(3, 5)).map((idea) => {
    const known = existing.get(idea.name);
    if (known) return known;
    const created = at();
    const { name, description, kind } = idea;
    rows.push({
      id: newId('list'),
      workspace_id: workspaceId,
      name,
      slug: slugs.take(name),
      description,
      kind,
      created_at: created,
      updated_at: created,
    });
    return rows[rows.length - 1]!.id;
  });
  return { ids, rows };
}

export function buildCatalogue(
  workspaceId: string,
  profile: CountryProfile,
  existing: ExistingCatalogue,
  clock: Sequence,
  from: number,
  now: number,
): CatalogueRows {
  // The business opened a few weeks before its first customer.
  let t = from - 30 * 24 * HOUR_MS;
  const at = () => {
    t += int(1, 48) * HOUR_MS;
    return clock.next(t);
  };
  const venues = buildVenues(profile, new SlugSet(existing.slugs.venues), at);
  const activities = buildActivities(profile, venues.venues, new SlugSet(existing.slugs.activities), at);
  const packages = buildPackages(profile, venues.venues, new SlugSet(existing.slugs.packages), at, now);
  const events = buildEvents(profile, venues.venues, new SlugSet(existing.slugs.events), at, now, from);
  const tags = buildTags(workspaceId, existing.tags, at);
  const lists = buildLists(workspaceId, existing.lists, new SlugSet(existing.slugs.lists), at);
  return {
    catalogue: {
      venues: venues.venues,
      products: [...activities.sellable, ...packages.sellable],
      events: events.events,
      tagIds: tags.ids,
      listIds: lists.ids,
    },
    docs: {
      venues: venues.records,
      activities: activities.records,
      packages: packages.records,
      events: events.records,
    },
    tags: tags.rows,
    lists: lists.rows,
  };
}
