import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR_MS, hourStart } from '../../src/jobs/activity.repo.ts';
import { DAY_MS } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { addStaff, createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { runCliProcess } from '../helpers/server-process.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { seedHours } from './activity-fixtures.ts';

/** `venue-api activity-check [--json]` (DECISIONS "Operator CLI"): the keys paused, with reasons. */
describe.each(ENGINES)('venue-api activity-check on %s', (engine) => {
  let storage: TestStorage;
  let keyId: string;
  let workspaceId: string;

  beforeAll(async () => {
    storage = await freshStorage(engine);
    const now = Date.now();
    const tenDaysAgo = () => now - 10 * DAY_MS;
    workspaceId = (await createWorkspace(storage, tenDaysAgo, { name: 'CLI check' })).id;
    await addStaff(storage, tenDaysAgo, { workspaceId, email: 'owner@cli.test', name: 'Owner', role: 'owner' });
    keyId = (await createKey(storage, tenDaysAgo, { workspaceId, name: 'bursty', mode: 'live', access: 'read' })).key
      .id;
    // 100 an hour for a week, then 2,000 in the last complete hour and in the current one
    // (so the test holds even if the clock hour turns before the CLI runs).
    const judged = hourStart(now) - HOUR_MS;
    const key = { id: keyId, workspaceId };
    await seedHours(storage.db, key, judged - 7 * DAY_MS, judged, 100);
    await seedHours(storage.db, key, judged, judged + 2 * HOUR_MS, 2_000);
  });
  afterAll(async () => storage?.drop());

  it('pauses the unusual key and prints it with its reason; a second run finds nothing new', async () => {
    const env = { DATABASE_URL: storage.url, SMTP_URL: '' };
    const first = await runCliProcess(['activity-check', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result).toMatchObject({ ran: true, keys_checked: 1 });
    expect(result.paused).toEqual([
      expect.objectContaining({ key: keyId, workspace: workspaceId, rule: 'requests', emails_sent: 0, emails_kept: 1 }),
    ]);
    expect(result.paused[0].reason).toMatch(/2000 requests/);

    const row = await storage.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
    expect(row.status).toBe('paused');
    expect(row.pause_reason).toBe(result.paused[0].reason);
    const outbox = await storage.db.selectFrom('outbox').selectAll().execute();
    expect(outbox.map((m) => m.recipient)).toEqual(['owner@cli.test']);

    const second = await runCliProcess(['activity-check'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^Checked 0 live key\(s\) at .*: 0 paused\.$/m);
  });
});
