import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeAuditLog } from '../../src/jobs/retention.ts';
import { keyActor } from '../../src/resources/actor.model.ts';
import type { AuditActor } from '../../src/resources/audit/audit.model.ts';
import { listAudit, recordAudit } from '../../src/resources/audit/audit.service.ts';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { createCustomer } from '../../src/resources/customers/customer.service.ts';
import { findKeyById } from '../../src/resources/keys/key.repo.ts';
import { changeKeyStatus, createKey } from '../../src/resources/keys/key.service.ts';
import { SignInGate } from '../../src/resources/staff/sign-in-gate.ts';
import { signIn } from '../../src/resources/staff/sign-in.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import {
  createEndpoint,
  deleteEndpoint,
  rotateSecret,
  setEndpointStatus,
} from '../../src/resources/webhooks/webhook.service.ts';
import { addStaffWithHash, cheapPasswordHash } from '../helpers/staff.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/** The audit log (docs/console.md "Audit log"): written with each action, in its transaction, paged and kept a year. */
describe.each(ENGINES)('audit log on %s', { timeout: 60_000 }, (engine) => {
  let storage: TestStorage;
  const clock = { now: Date.UTC(2026, 10, 1), fn: () => clock.now };
  let workspaceId: string;
  const owner: AuditActor = {
    kind: 'staff',
    staffId: 'stf_0000000000000000000000',
    email: 'owner@example.com',
    address: '203.0.113.9',
  };
  const operator: AuditActor = { kind: 'operator', name: 'Ops Person' };
  const entries = async (filter: { actor?: string; action?: string } = {}) =>
    (await listAudit(storage.db, workspaceId, filter, null, 100)).entries;

  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, clock.fn, { name: 'Audited' })).id;
  });
  afterAll(async () => storage?.drop());

  it('a key created, paused, resumed and revoked is four entries, newest first, with who, where and what', async () => {
    const { key } = await createKey(storage, clock.fn, {
      workspaceId,
      name: 'Sync',
      mode: 'live',
      access: 'read_write',
      by: owner,
    });
    clock.now += 1_000;
    await changeKeyStatus(storage, clock.fn, key.id, 'pause', 'Checking', owner);
    clock.now += 1_000;
    await changeKeyStatus(storage, clock.fn, key.id, 'resume', null, operator);
    clock.now += 1_000;
    await changeKeyStatus(storage, clock.fn, key.id, 'revoke', null, operator);
    const found = (await entries()).filter((e) => e.target === key.id);
    expect(found.map((e) => e.action)).toEqual(['key.revoked', 'key.resumed', 'key.paused', 'key.created']);
    expect(found[2]).toMatchObject({
      actor: 'owner@example.com',
      actorKind: 'staff',
      source: 'console',
      address: '203.0.113.9',
      detail: { reason: 'Checking' },
    });
    expect(found[0]).toMatchObject({ actor: 'ops person', source: 'cli', address: null });
    expect(found[3]!.detail).toEqual({ name: 'Sync', mode: 'live', access: 'read_write' });
  });

  it('a webhook endpoint created, disabled, enabled, rotated and deleted is five entries, never with its secret', async () => {
    const policy = { allowHttp: true, allowPrivate: true };
    const { endpoint, secret } = await createEndpoint(storage, clock.fn, policy, {
      workspaceId,
      url: 'http://127.0.0.1:9/hooks',
      mode: 'test',
      contactsMasked: false,
      createdBy: 'owner@example.com',
      by: owner,
    });
    clock.now += 1_000;
    await setEndpointStatus(storage, clock.fn, workspaceId, endpoint.id, 'disabled', owner);
    clock.now += 1_000;
    await setEndpointStatus(storage, clock.fn, workspaceId, endpoint.id, 'enabled', operator);
    clock.now += 1_000;
    const rotated = await rotateSecret(storage, clock.fn, workspaceId, endpoint.id, operator);
    clock.now += 1_000;
    await deleteEndpoint(storage, workspaceId, endpoint.id, owner, clock.fn);
    const found = (await entries()).filter((e) => e.target === endpoint.id);
    expect(found.map((e) => e.action)).toEqual([
      'webhook.deleted',
      'webhook.secret_rotated',
      'webhook.enabled',
      'webhook.disabled',
      'webhook.created',
    ]);
    expect(found[4]).toMatchObject({
      actor: 'owner@example.com',
      detail: { url: 'http://127.0.0.1:9/hooks', mode: 'test' },
    });
    expect(found[1]).toMatchObject({ actor: 'ops person', source: 'cli' });
    const text = JSON.stringify(found);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(rotated.secret);
  });

  it('an action that is refused writes no entry: its transaction rolled back', async () => {
    const { key } = await createKey(storage, clock.fn, { workspaceId, name: 'Gone', mode: 'test', access: 'read' });
    await changeKeyStatus(storage, clock.fn, key.id, 'revoke', null, owner);
    const before = (await entries()).length;
    await expect(changeKeyStatus(storage, clock.fn, key.id, 'resume', null, owner)).rejects.toThrow(/revoked key/);
    // The 25-key limit refuses the key inside the transaction that would have written the entry.
    for (let i = 0; i < 25; i++)
      await createKey(storage, clock.fn, { workspaceId, name: `k${i}`, mode: 'test', access: 'read' }).catch(
        () => null,
      );
    await expect(
      createKey(storage, clock.fn, { workspaceId, name: 'One too many', mode: 'test', access: 'read', by: owner }),
    ).rejects.toThrow(/at most 25 keys/);
    expect((await entries()).length).toBe(before);
    // And an entry written in a transaction that fails goes with it.
    await expect(
      storage.write(async (tx) => {
        await recordAudit(tx, { workspaceId, at: clock.now, by: owner, action: 'key.created', target: 'key_x' });
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    expect((await entries()).length).toBe(before);
  });

  it('an undo is one entry with its counts, as the operator who ran it; a dry run writes none', async () => {
    const other = await createWorkspace(storage, clock.fn, { name: 'Undo' });
    const { key } = await createKey(storage, clock.fn, {
      workspaceId: other.id,
      name: 'Writer',
      mode: 'test',
      access: 'read_write',
    });
    const actor = keyActor((await findKeyById(storage.db, key.id))!, 'req_test', clock.fn);
    await storage.writes.run(actor, createCustomer, { first_name: 'Ada' });
    await undoKeyChanges(storage, key.id, {
      by: { kind: 'operator', id: 'ops' },
      clock: clock.fn,
      dryRun: true,
      audit: operator,
    });
    expect((await listAudit(storage.db, other.id, {}, null)).entries).toEqual([]);
    await undoKeyChanges(storage, key.id, { by: { kind: 'operator', id: 'ops' }, clock: clock.fn, audit: operator });
    const [entry] = (await listAudit(storage.db, other.id, {}, null)).entries;
    expect(entry).toMatchObject({
      action: 'undo.run',
      target: key.id,
      actor: 'ops person',
      source: 'cli',
      detail: { reverted: 1, skipped: 0, finished: true },
    });
  });

  it('a sign-in and a failed sign-in are entries of the workspace, with the address; an unknown email is in none', async () => {
    const ws = await createWorkspace(storage, clock.fn, { name: 'Sign-ins' });
    await addStaffWithHash(storage, clock.fn, {
      workspaceId: ws.id,
      email: 'sam@example.com',
      name: 'Sam',
      role: 'staff',
      hash: cheapPasswordHash('right password'),
    });
    expect(
      (
        await signIn(storage, clock.fn, new SignInGate(), {
          email: 'sam@example.com',
          password: 'wrong',
          ip: '198.51.100.4',
        })
      ).kind,
    ).toBe('refused');
    expect(
      (
        await signIn(storage, clock.fn, new SignInGate(), {
          email: 'nobody@example.com',
          password: 'x',
          ip: '198.51.100.4',
        })
      ).kind,
    ).toBe('refused');
    clock.now += 1_000;
    expect(
      (
        await signIn(storage, clock.fn, new SignInGate(), {
          email: 'sam@example.com',
          password: 'right password',
          ip: '198.51.100.5',
        })
      ).kind,
    ).toBe('signed_in');
    const found = (await listAudit(storage.db, ws.id, {}, null)).entries;
    expect(found.map((e) => [e.action, e.actor, e.address])).toEqual([
      ['sign_in.succeeded', 'sam@example.com', '198.51.100.5'],
      ['sign_in.failed', 'sam@example.com', '198.51.100.4'],
    ]);
  });

  it('pages newest first with a cursor and filters by person and action', async () => {
    const ws = await createWorkspace(storage, clock.fn, { name: 'Paged' });
    const at = clock.now;
    await storage.write(async (tx) => {
      for (let i = 0; i < 7; i++)
        await recordAudit(tx, {
          workspaceId: ws.id,
          // Two entries share each instant: the id orders them.
          at: at + Math.floor(i / 2),
          by: i % 2 === 0 ? owner : operator,
          action: i % 3 === 0 ? 'key.paused' : 'key.resumed',
          target: `key_${i}`,
        });
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listAudit(storage.db, ws.id, {}, cursor, 3);
      expect(page.entries.length).toBeLessThanOrEqual(3);
      seen.push(...page.entries.map((e) => e.target!));
      cursor = page.next;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    const all = (await listAudit(storage.db, ws.id, {}, null, 10)).entries;
    expect(all.map((e) => e.target)).toEqual(seen);
    expect(all.map((e) => e.at)).toEqual([...all.map((e) => e.at)].sort((a, b) => b - a));

    const mine = (await listAudit(storage.db, ws.id, { actor: 'owner@example.com' }, null)).entries;
    expect(mine.map((e) => e.target).sort()).toEqual(['key_0', 'key_2', 'key_4', 'key_6']);
    const paused = (await listAudit(storage.db, ws.id, { action: 'key.paused' }, null)).entries;
    expect(paused.map((e) => e.target).sort()).toEqual(['key_0', 'key_3', 'key_6']);
    const both = (await listAudit(storage.db, ws.id, { actor: 'ops person', action: 'key.paused' }, null)).entries;
    expect(both.map((e) => e.target)).toEqual(['key_3']);

    // A cursor made for other filters is refused rather than paging wrongly.
    const first = await listAudit(storage.db, ws.id, {}, null, 2);
    await expect(listAudit(storage.db, ws.id, { action: 'key.paused' }, first.next, 2)).rejects.toThrow(/filters/);
    await expect(listAudit(storage.db, ws.id, { action: 'key.nonsense' }, null)).rejects.toThrow(/no such action/);
  });

  it('entries older than 365 days are purged with the change log; newer ones stay', async () => {
    const ws = await createWorkspace(storage, clock.fn, { name: 'Old' });
    const day = 86_400_000;
    await storage.write(async (tx) => {
      await recordAudit(tx, {
        workspaceId: ws.id,
        at: clock.now - 366 * day,
        by: owner,
        action: 'key.paused',
        target: 'old',
      });
      await recordAudit(tx, {
        workspaceId: ws.id,
        at: clock.now - 364 * day,
        by: owner,
        action: 'key.paused',
        target: 'kept',
      });
    });
    expect(await purgeAuditLog(storage, clock.fn)).toBeGreaterThanOrEqual(1);
    expect((await listAudit(storage.db, ws.id, {}, null)).entries.map((e) => e.target)).toEqual(['kept']);
  });
});
