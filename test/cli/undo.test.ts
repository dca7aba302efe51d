import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { keyActor, personActor } from '../../src/resources/actor.model.ts';
import { findKeyById } from '../../src/resources/keys/key.repo.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { addStaff, createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { runCliProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';
import { writesAs } from '../helpers/writes.ts';

/** `venue-api undo KEY_ID [--json]` -> {"reverted":N,"skipped":[…]} (DECISIONS "Operator CLI"). */
describe('venue-api undo', () => {
  let storage: TestStorage;
  let keyId: string;
  let customerId: string;
  let staffCustomer: string;

  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    const ws = await createWorkspace(storage, systemClock, { name: 'CLI' });
    keyId = (
      await createKey(storage, systemClock, { workspaceId: ws.id, name: 'k', mode: 'live', access: 'read_write' })
    ).key.id;
    const staffMember = await addStaff(storage, systemClock, {
      workspaceId: ws.id,
      email: 's@example.com',
      name: 'S',
      role: 'staff',
    });
    const writes = storage.writes;
    const key = writesAs(writes, keyActor((await findKeyById(storage.db, keyId))!, 'req_cli', systemClock));
    const staff = writesAs(
      writes,
      personActor('staff', staffMember.id, { workspaceId: ws.id, livemode: true }, systemClock),
    );
    customerId = (await key.create({ first_name: 'Made by key' })).record.id;
    staffCustomer = (await staff.create({ first_name: 'Staff', company: 'Before' })).record.id;
    await key.update(staffCustomer, { company: 'By key', nickname: 'K' });
    await staff.update(staffCustomer, { nickname: 'Staff nick' });
  });
  afterAll(async () => storage?.drop());

  const env = () => ({ DATABASE_URL: storage.url });

  it('--dry-run --json reports and changes nothing; --json reverts and prints {"reverted":N,"skipped":[…]}', async () => {
    const dry = await runCliProcess(['undo', keyId, '--dry-run', '--json'], env());
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout);
    expect(planned).toEqual({
      reverted: 2,
      skipped: [expect.objectContaining({ customer: staffCustomer, field: 'nickname', reason: 'changed_since' })],
    });
    const untouched = await storage.db
      .selectFrom('customers')
      .select(['deleted_at', 'company'])
      .where('id', 'in', [customerId, staffCustomer])
      .execute();
    expect(untouched.every((r) => r.deleted_at === null)).toBe(true);

    const real = await runCliProcess(['undo', keyId, '--json', '--by', 'ops@example.com'], env());
    expect(real.code, real.stderr).toBe(0);
    expect(JSON.parse(real.stdout)).toEqual(planned);
    const rows = await storage.db
      .selectFrom('customers')
      .selectAll()
      .where('id', 'in', [customerId, staffCustomer])
      .execute();
    expect(rows.find((r) => r.id === customerId)!.deleted_at).not.toBeNull();
    expect(rows.find((r) => r.id === staffCustomer)).toMatchObject({ company: 'Before', nickname: 'Staff nick' });
    const undone = await storage.db
      .selectFrom('change_log')
      .select(['actor_kind', 'actor_id'])
      .where('reverts', 'is not', null)
      .execute();
    expect(undone).toEqual([
      { actor_kind: 'operator', actor_id: 'ops@example.com' },
      { actor_kind: 'operator', actor_id: 'ops@example.com' },
    ]);
    const twice = await undoKeyChanges(storage, keyId, { by: { kind: 'operator', id: 'again' }, clock: systemClock });
    expect(twice).toEqual({ reverted: 0, skipped: [] });
  }, 60_000);

  it('an unknown key fails with one line on stderr and exit code 1', async () => {
    const res = await runCliProcess(['undo', 'key_0000000000000000000000'], env());
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^venue-api: No key key_0+\.\n$/);
  }, 60_000);
});
