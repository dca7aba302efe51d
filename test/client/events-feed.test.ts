import { VenueApiError, VenueClient, type WebhookFeedEvent } from 'venue-api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/**
 * venue-api-client's `webhookEvents`: the events feed (DECISIONS "Events feed") paged and
 * retrieved through the client, typed with the generated event types, on both engines.
 */
describe.each(ENGINES)('venue-api-client webhookEvents on %s', (engine) => {
  let t: TestApp;
  let baseUrl: string;
  let venue: VenueClient;
  const made: string[] = [];
  let updated: string;
  let midway: string;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    venue = new VenueClient({ apiKey: t.keys.test.secret, baseUrl });
    for (let i = 0; i < 5; i++) {
      // A second apart, so the feed's order by created_at is the order they were made.
      t.clock.now += 1_000;
      if (i === 3) midway = new Date(t.clock.now).toISOString();
      made.push((await venue.customers.create({ first_name: `Feed ${i}` })).id);
    }
    t.clock.now += 1_000;
    updated = (await venue.customers.update(made[0]!, { nickname: 'First' })).id;
  });
  afterAll(async () => t?.close());

  /** The customer an event is about, and what happened to it. */
  const about = (e: WebhookFeedEvent) => `${e.type} ${e.data.object.id}`;

  it('answers one page when awaited and walks every event, newest first, when iterated', async () => {
    const page = await venue.webhookEvents.list({ limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    const all: WebhookFeedEvent[] = [];
    for await (const event of venue.webhookEvents.list({ limit: 2 })) all.push(event);
    expect(all.map(about)).toEqual([
      `customer.updated ${updated}`,
      ...[...made].reverse().map((id) => `customer.created ${id}`),
    ]);
    expect(all.slice(0, 2)).toEqual(page.data);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
  });

  it('filters by type and by created_since (inclusive), and narrows the event on its type', async () => {
    const changes: string[] = [];
    for await (const event of venue.webhookEvents.list({ type: 'customer.updated,customer.deleted' })) {
      if (event.type === 'customer.updated')
        changes.push(`${event.data.object.nickname} was ${event.data.previous_attributes.nickname}`);
    }
    expect(changes).toEqual(['First was null']);
    const recent = await venue.webhookEvents.list({ created_since: midway, type: 'customer.created' });
    expect(recent.data.map(about)).toEqual([`customer.created ${made[4]}`, `customer.created ${made[3]}`]);
  });

  it('retrieves one event as the feed lists it, and answers 404 for one another mode may not see', async () => {
    const [newest] = (await venue.webhookEvents.list({ limit: 1 })).data;
    expect(await venue.webhookEvents.retrieve(newest!.id)).toEqual(newest);
    const live = new VenueClient({ apiKey: t.keys.live.secret, baseUrl });
    const err = await live.webhookEvents.retrieve(newest!.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
    expect((await live.webhookEvents.list()).data).toEqual([]);
  });

  it('refuses an unknown type with 400 invalid_request naming the field', async () => {
    const err = await venue.webhookEvents.list({ type: 'webhook.test' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(VenueApiError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_request', errors: [{ field: 'type' }] });
  });
});
