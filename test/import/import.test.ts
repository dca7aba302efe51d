import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords, type ImportReport } from '../../src/import/import.service.ts';
import { fileSource, memorySource } from '../../src/import/reader.ts';
import { newId } from '../../src/lib/ids.ts';
import { seedWorkspace } from '../../src/seed/seed.service.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, newTenant, walk, type Tenant } from '../helpers/tenant.ts';
import * as r from './records.ts';
import { membershipCountDrift } from '../helpers/membership-counts.ts';

/** `venue-api import` (DECISIONS "Operator CLI"): records in the API's own shapes. */
const COLLECTIONS = [
  'venues',
  'tags',
  'lists',
  'activities',
  'packages',
  'events',
  'customers',
  'bookings',
  'orders',
  'tickets',
  'gift-cards',
];
const MODE_COLLECTIONS = ['customers', 'bookings', 'orders'];

async function exportAll(t: TestApp, live: TestKey, test: TestKey): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const c of COLLECTIONS) out[c] = (await walk(t, live, `/${c}?limit=100`)).records;
  for (const c of MODE_COLLECTIONS) out[`test:${c}`] = (await walk(t, test, `/${c}?limit=100`)).records;
  return out;
}

const run = (t: TestApp, workspaceId: string, text: string) =>
  importRecords(t.storage, { workspaceId, source: memorySource(text) });

describe.each(ENGINES)('import on %s', (engine) => {
  let source: TestApp;
  let target: TestApp;
  let dir: string;

  beforeAll(async () => {
    [source, target] = await Promise.all([makeTestApp(engine), makeTestApp(engine)]);
    await seedWorkspace(source.storage, { workspaceId: source.workspaceId, customers: 120 });
    dir = mkdtempSync(join(tmpdir(), 'venue-import-'));
  });
  afterAll(async () => {
    await Promise.all([source?.close(), target?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports an export of a seeded workspace so that the API answers the very same records', async () => {
    const before = await exportAll(source, source.keys.live, source.keys.test);
    // Dependants first: references resolve within the file, whatever its order.
    const lines = Object.keys(before)
      .reverse()
      .flatMap((c) => before[c]!.map((rec) => JSON.stringify(rec)));
    const file = join(dir, 'export.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const report = await importRecords(target.storage, {
      workspaceId: target.workspaceId,
      source: await fileSource(file),
    });
    expect(report.bad_lines).toEqual([]);
    expect(report.lines).toBe(lines.length);
    expect(report.imported.customer).toBe(before.customers!.length + before['test:customers']!.length);
    expect(await exportAll(target, target.keys.live, target.keys.test)).toEqual(before);
  });

  describe('a file with bad lines', () => {
    let tn: Tenant;
    let report: ImportReport;
    const V = r.venue();
    const T = r.tag();
    const L = r.list();
    const A = r.activity(V.id as string);
    const D1 = newId('event_date');
    const E = r.event(V.id as string, D1);
    const C1 = r.customer({
      email: 'ada@example.com',
      tags: [{ id: T.id, name: 'VIP', added_at: null }],
      lists: [{ id: L.id, name: 'Newsletter', status: 'active', added_at: null, unsubscribed_at: null }],
    });
    const C2 = r.customer({ email: 'ada@example.com' });
    const C3 = r.customer({ livemode: false, tags: [{ id: newId('tag'), name: 'Ghost', added_at: null }] });
    const C4 = r.customer({ livemode: false, email: 'ada@example.com' });
    const CZ = r.customer({ email: '  Zed@Example.COM ' });
    const B1 = r.booking(V.id as string, C1.id as string, A.id as string);
    const B2 = r.booking(V.id as string, C1.id as string, A.id as string, { livemode: false });
    const B3 = r.booking(newId('venue'), C1.id as string, A.id as string);
    const O1 = r.order({ venue: V.id, customer: C1.id, booking: B1.id });
    const O2 = r.order({ booking: B2.id });
    const K1 = r.ticket({ event: E.id, event_date: D1, order: O1.id, customer: C1.id });
    const K2 = r.ticket({ event: E.id, event_date: newId('event_date') });
    const G1 = r.giftCard({
      holder: C1.id,
      buyer: C1.id,
      movements: [
        {
          type: 'issue',
          amount: 5000,
          balance_after: 5000,
          order: O1.id,
          booking: null,
          created_at: '2025-03-01T10:00:00.000Z',
        },
      ],
    });
    const badVenue = { ...r.venue({ created_at: '2025-03-01T10:00:00Z', surprise: 1 }), slug: undefined };
    const text = r.ndjson([
      V, // 1
      '{not json', // 2
      { object: 'spaceship', id: 'x' }, // 3
      badVenue, // 4
      T, // 5
      L, // 6
      A, // 7
      E, // 8
      C1, // 9
      C2, // 10: C1's email
      C3, // 11: a tag that does not exist
      C4, // 12: a test customer may share a live customer's email
      '', // 13: blank, skipped
      B1, // 14
      B2, // 15: a test booking naming a live customer
      B3, // 16: no such venue
      O1, // 17
      O2, // 18: its booking is a bad line
      K1, // 19
      K2, // 20: a date that is not the event's
      G1, // 21
      V, // 22: the same id again
      CZ, // 23
    ]);

    beforeAll(async () => {
      tn = await newTenant(target, 'Bad lines');
      report = await run(target, tn.workspaceId, text);
    });

    it('reports each bad line by its number, with a reason', () => {
      const byLine = Object.fromEntries(report.bad_lines.map((b) => [b.line, b.errors.join('; ')]));
      expect(Object.keys(byLine).map(Number)).toEqual([2, 3, 4, 10, 11, 15, 16, 18, 20, 22]);
      expect(byLine[2]).toMatch(/not valid JSON/);
      expect(byLine[3]).toMatch(/object must be one of/);
      expect(byLine[4]).toMatch(/slug is required/);
      expect(byLine[4]).toMatch(/surprise is not a field/);
      expect(byLine[4]).toMatch(/created_at must be an instant like/);
      expect(byLine[10]).toMatch(/email ada@example.com is already on line 9/);
      expect(byLine[11]).toMatch(/tags\.0\.id tag_\w+ is not a tag of this workspace/);
      expect(byLine[15]).toMatch(/people\.0\.customer .* is a live customer; a test booking may only name test ones/);
      expect(byLine[16]).toMatch(/venue ven_\w+ is not a venue/);
      expect(byLine[18]).toMatch(/booking bkg_\w+ is not a booking/);
      expect(byLine[20]).toMatch(/is not a date of event/);
      expect(byLine[22]).toMatch(/is already on line 1/);
      expect(report.lines).toBe(22);
    });

    it('imports the good lines and counts them per object', async () => {
      expect(report.imported).toEqual({
        venue: 1,
        tag: 1,
        list: 1,
        activity: 1,
        event: 1,
        customer: 3,
        booking: 1,
        order: 1,
        ticket: 1,
        gift_card: 1,
      });
      const c1 = await get(target, tn.live, `/customers/${C1.id}`);
      expect(c1.status).toBe(200);
      expect(c1.body.tags.map((t: { id: string }) => t.id)).toEqual([T.id]);
      expect(c1.body.lists).toEqual([
        { id: L.id, name: 'Newsletter', status: 'active', added_at: null, unsubscribed_at: null },
      ]);
      const zed = await get(target, tn.live, `/customers/${CZ.id}`);
      expect(zed.body.email).toBe('zed@example.com');
      expect((await get(target, tn.test, `/customers/${C4.id}`)).status).toBe(200);
      expect((await get(target, tn.live, `/tickets/${K1.id}`)).body.event_date).toBe(D1);
      expect((await get(target, tn.live, `/gift-cards/${G1.id}`)).status).toBe(200);
    });

    it('writes nothing of a bad line', async () => {
      for (const [key, path] of [
        [tn.live, `/customers/${C2.id}`],
        [tn.test, `/customers/${C3.id}`],
        [tn.test, `/bookings/${B2.id}`],
        [tn.live, `/bookings/${B3.id}`],
        [tn.live, `/orders/${O2.id}`],
        [tn.live, `/tickets/${K2.id}`],
      ] as const) {
        expect((await get(target, key, path)).status, path).toBe(404);
      }
      const venues = await walk(target, tn.live, '/venues');
      expect(venues.records.map((v) => v.id)).toEqual([V.id]);
    });

    it('upserts by id: a second import changes the record and moves updated_at and version on', async () => {
      const again = await run(
        target,
        tn.workspaceId,
        r.ndjson([
          { ...V, name: 'Harbour Lanes & Bar' },
          { ...C1, first_name: 'Augusta' },
        ]),
      );
      expect(again.bad_lines).toEqual([]);
      const v = await get(target, tn.live, `/venues/${V.id}`);
      expect(v.body.name).toBe('Harbour Lanes & Bar');
      expect(Date.parse(v.body.updated_at)).toBeGreaterThan(Date.parse(V.updated_at as string));
      const c = await get(target, tn.live, `/customers/${C1.id}`);
      expect(c.body).toMatchObject({ first_name: 'Augusta', version: '2' });
    });

    it('refuses an id that belongs to another workspace and leaves that record alone', async () => {
      const other = await run(target, target.workspaceId, r.ndjson([{ ...V, name: 'Hijacked' }]));
      expect(other.bad_lines).toEqual([
        { line: 1, object: 'venue', id: V.id, errors: [`${V.id} belongs to another workspace`] },
      ]);
      expect(other.imported).toEqual({});
      expect((await get(target, tn.live, `/venues/${V.id}`)).body.name).toBe('Harbour Lanes & Bar');
    });
  });

  it("leaves every customer's tag and list counts true (migration 007's triggers)", async () => {
    expect(await membershipCountDrift(source.storage.db)).toEqual([]);
    expect(await membershipCountDrift(target.storage.db)).toEqual([]);
  });
});
