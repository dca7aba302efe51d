import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS, DEMO_META, demoBanner, prepareDemo, type DemoOutcome } from '../src/demo.ts';
import { seedWorkspace } from '../src/seed/seed.service.ts';
import { ENGINES, freshStorage, type TestStorage } from './helpers/storage.ts';

/**
 * The first start's demo (docs/behaviour.md "First start"): recorded as pending with its workspace,
 * complete once seeded with an owner and a key. A start that died half way is redone by the
 * next one, which prints the banner with a key that works; nothing of the first try stays.
 */
describe.each(ENGINES)('the first-start demo on %s', { timeout: 60_000 }, (engine) => {
  let storage: TestStorage;
  beforeEach(async () => {
    storage = await freshStorage(engine);
  });
  afterEach(async () => storage?.drop());

  const clock = () => Date.now();
  const count = async (table: 'workspaces' | 'customers' | 'venues' | 'staff' | 'api_keys') =>
    Number(
      (
        await storage.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const meta = async () => {
    const row = await storage.db.selectFrom('meta').select('value').where('name', '=', DEMO_META).executeTakeFirst();
    return row ? JSON.parse(row.value) : null;
  };
  const crashAfterSeeding: typeof seedWorkspace = async (s, options) => {
    await seedWorkspace(s, options);
    throw new Error('the process died');
  };
  const crashBeforeSeeding: typeof seedWorkspace = async () => {
    throw new Error('the process died');
  };

  async function expectWholeDemo(outcome: DemoOutcome) {
    expect(outcome.kind).toBe('created');
    if (outcome.kind !== 'created') return;
    expect(await meta()).toEqual({ ...outcome.demo, status: 'complete' });
    expect(await count('workspaces')).toBe(1);
    expect(await count('customers')).toBe(DEMO_CUSTOMERS);
    expect(await count('staff')).toBe(1);
    expect(await count('api_keys')).toBe(1);
    const key = await storage.db.selectFrom('api_keys').select(['id', 'workspace_id']).executeTakeFirstOrThrow();
    expect(key).toEqual({ id: outcome.demo.key_id, workspace_id: outcome.demo.workspace_id });
    expect(demoBanner(outcome, 'http://127.0.0.1:8080')).toContain(`Bearer ${outcome.secret}`);
  }

  it.each([
    ['after seeding', crashAfterSeeding],
    ['before seeding', crashBeforeSeeding],
  ])('a start that died %s leaves the demo pending; the next start redoes it and prints it', async (_when, seed) => {
    await expect(prepareDemo(storage, clock, { seed })).rejects.toThrow('the process died');
    const pending = await meta();
    expect(pending).toMatchObject({ status: 'pending', workspace_name: 'Demo Venues' });
    expect(await count('workspaces')).toBe(1);

    const again = await prepareDemo(storage, clock);
    await expectWholeDemo(again);
    expect(again.kind === 'created' && again.demo.workspace_id).toBe(pending.workspace_id);

    const later = await prepareDemo(storage, clock);
    expect(later).toEqual({ kind: 'existing', demo: (again as { demo: unknown }).demo });
    expect(demoBanner(later, 'http://127.0.0.1:8080')).toMatch(/was printed at the first start/);
  });

  it('a clean first start records the demo as complete', async () => {
    await expectWholeDemo(await prepareDemo(storage, clock));
  });

  it.runIf(engine === 'postgres')(
    'a start while another process is making the demo says so in its banner',
    async () => {
      await expect(prepareDemo(storage, clock, { seed: crashBeforeSeeding })).rejects.toThrow();
      // Another process holds the job lock (as it would while redoing the demo).
      const outcome = await storage.engine.withJobLock(storage.db, 'first-start-demo', () =>
        prepareDemo(storage, clock),
      );
      expect(outcome.ran).toBe(true);
      expect(outcome.value).toMatchObject({ kind: 'pending', demo: { status: 'pending' } });
      expect(demoBanner(outcome.value!, 'http://127.0.0.1:8080')).toMatch(/is being made by another process/);
    },
  );
});
