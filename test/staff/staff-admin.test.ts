import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/jobs/outbox.repo.ts';
import type { AuditActor } from '../../src/resources/audit/audit.model.ts';
import { listAudit } from '../../src/resources/audit/audit.service.ts';
import {
  INVITATION_TTL_MS,
  acceptInvitation,
  inviteStaff,
  openInvitation,
} from '../../src/resources/staff/invitation.service.ts';
import { resolveSession, startSession } from '../../src/resources/staff/session.service.ts';
import { changeStaffRole, listWorkspaceStaff, removeStaff } from '../../src/resources/staff/staff-admin.service.ts';
import { createWorkspace, type StaffMember } from '../../src/resources/workspaces/workspace.service.ts';
import { startSmtpSink } from '../helpers/smtp-sink.ts';
import { addStaffWithHash, cheapPasswordHash } from '../helpers/staff.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

const MAIL = { smtpUrl: null, mailFrom: 'test <t@example.com>', baseUrl: 'http://console.test' };

/** Owners managing staff (docs/console.md "Staff"): invitations, roles, removals, the last owner. */
describe.each(ENGINES)('staff management on %s', { timeout: 60_000 }, (engine) => {
  let storage: TestStorage;
  const clock = { now: Date.UTC(2026, 10, 1), fn: () => clock.now };
  let n = 0;

  const workspace = async () => {
    const ws = await createWorkspace(storage, clock.fn, { name: `Team ${++n}` });
    const owner = await person(ws.id, 'owner');
    const by: AuditActor & { kind: 'staff' } = {
      kind: 'staff',
      staffId: owner.id,
      email: owner.email,
      address: '203.0.113.1',
    };
    return { ws, owner, by };
  };
  const person = (workspaceId: string, role: 'owner' | 'key_manager' | 'staff'): Promise<StaffMember> =>
    addStaffWithHash(storage, clock.fn, {
      workspaceId,
      email: `p${++n}@example.com`,
      name: `Person ${n}`,
      role,
      hash: cheapPasswordHash('a password'),
    });
  const tokenOf = (link: string) => link.split('/').pop()!;

  beforeAll(async () => {
    storage = await freshStorage(engine);
  });
  afterAll(async () => storage?.drop());

  it('the last owner can be neither demoted nor removed, with a message that says why', async () => {
    const { ws, owner, by } = await workspace();
    await expect(
      changeStaffRole(storage, clock.fn, { workspaceId: ws.id, staffId: owner.id, role: 'staff', by }),
    ).rejects.toThrow(/last owner of this workspace, so they cannot be demoted\. Make someone else an owner first/);
    await expect(removeStaff(storage, clock.fn, { workspaceId: ws.id, staffId: owner.id, by })).rejects.toThrow(
      /last owner of this workspace, so they cannot be removed/,
    );
    // With a second owner, the first may step down; then the second is the last.
    const second = await person(ws.id, 'key_manager');
    await changeStaffRole(storage, clock.fn, { workspaceId: ws.id, staffId: second.id, role: 'owner', by });
    clock.now += 1_000;
    await changeStaffRole(storage, clock.fn, { workspaceId: ws.id, staffId: owner.id, role: 'key_manager', by });
    await expect(removeStaff(storage, clock.fn, { workspaceId: ws.id, staffId: second.id, by })).rejects.toThrow(
      /last owner/,
    );
    const roles = (await listWorkspaceStaff(storage.db, ws.id, clock.now)).staff.map((s) => [s.email, s.role]);
    expect(roles).toEqual([
      [second.email, 'owner'],
      [owner.email, 'key_manager'],
    ]);
    const actions = (await listAudit(storage.db, ws.id, { action: 'staff.role_changed' }, null)).entries;
    expect(actions.map((e) => e.detail)).toEqual([
      { email: owner.email, from: 'owner', to: 'key_manager' },
      { email: second.email, from: 'key_manager', to: 'owner' },
    ]);
  });

  it('removing someone ends every session they have at once, and is audited; a refused removal writes nothing', async () => {
    const { ws, by } = await workspace();
    const leaver = await person(ws.id, 'key_manager');
    const tokens = [await startSession(storage, clock.fn, leaver.id), await startSession(storage, clock.fn, leaver.id)];
    expect(await resolveSession(storage, clock.fn, tokens[0])).toMatchObject({
      staffId: leaver.id,
      role: 'key_manager',
    });
    const { sessionsEnded } = await removeStaff(storage, clock.fn, { workspaceId: ws.id, staffId: leaver.id, by });
    expect(sessionsEnded).toBe(2);
    for (const token of tokens) expect(await resolveSession(storage, clock.fn, token)).toBeNull();
    const entries = (await listAudit(storage.db, ws.id, {}, null)).entries;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'staff.removed',
      target: leaver.id,
      actor: by.email,
      address: '203.0.113.1',
      detail: { email: leaver.email, role: 'key_manager', sessions_ended: 2 },
    });
    // Someone of another workspace is as unknown as nobody.
    const other = await workspace();
    await expect(removeStaff(storage, clock.fn, { workspaceId: ws.id, staffId: other.owner.id, by })).rejects.toThrow(
      /no staff member/,
    );
  });

  it('a role change applies to a signed-in session at its next request', async () => {
    const { ws, by } = await workspace();
    const member = await person(ws.id, 'key_manager');
    const token = await startSession(storage, clock.fn, member.id);
    await changeStaffRole(storage, clock.fn, { workspaceId: ws.id, staffId: member.id, role: 'staff', by });
    expect(await resolveSession(storage, clock.fn, token)).toMatchObject({ role: 'staff' });
  });

  it('an invitation is stored hashed, kept in the outbox for owners only, works once, and is audited', async () => {
    const { ws, by } = await workspace();
    const sent = await inviteStaff(storage, clock.fn, MAIL, {
      workspaceId: ws.id,
      email: ' New.Person@Example.com ',
      role: 'key_manager',
      by,
    });
    expect(sent).toMatchObject({ email: 'new.person@example.com', role: 'key_manager', delivery: 'kept' });
    expect(sent.link).toMatch(/^http:\/\/console\.test\/console\/invitations\/[\w-]{43}$/);
    const token = tokenOf(sent.link);
    const stored = await storage.db.selectFrom('staff_invitations').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);
    // The outbox keeps the email with its link; only owners see it there.
    expect((await listOutbox(storage.db, ws.id, { offset: 0, limit: 10 }, { owner: true })).emails[0]?.body).toContain(
      sent.link,
    );
    expect((await listOutbox(storage.db, ws.id, { offset: 0, limit: 10 })).total).toBe(0);

    expect(await openInvitation(storage.db, clock.fn, token)).toMatchObject({
      email: 'new.person@example.com',
      role: 'key_manager',
      invitedBy: by.email,
    });
    clock.now += 1_000;
    const joined = await acceptInvitation(storage, clock.fn, {
      token,
      name: 'New Person',
      password: 'their own password',
      address: '198.51.100.9',
    });
    const member = (await listWorkspaceStaff(storage.db, ws.id, clock.now)).staff.find((s) => s.id === joined.staffId);
    expect(member).toMatchObject({ email: 'new.person@example.com', role: 'key_manager', has_password: true });
    await expect(
      acceptInvitation(storage, clock.fn, {
        token,
        name: 'Again',
        password: 'another password',
        address: '198.51.100.9',
      }),
    ).rejects.toThrow(/already used/);
    const actions = (await listAudit(storage.db, ws.id, {}, null)).entries.map((e) => [e.action, e.actor]);
    expect(actions).toEqual([
      ['staff.joined', 'new.person@example.com'],
      ['staff.invited', by.email],
    ]);
    // Already staff: a second invitation is refused.
    await expect(
      inviteStaff(storage, clock.fn, MAIL, { workspaceId: ws.id, email: 'new.person@example.com', role: 'staff', by }),
    ).rejects.toThrow(/already staff/);
  });

  it('an invitation goes over SMTP when it is set, and is kept for owners only, with the error, when SMTP refuses it', async () => {
    const { ws, by } = await workspace();
    const invite = (smtpUrl: string, email: string) =>
      inviteStaff(storage, clock.fn, { ...MAIL, smtpUrl }, { workspaceId: ws.id, email, role: 'staff', by });
    const sink = await startSmtpSink();
    try {
      const sent = await invite(sink.url, 'a@example.com');
      expect(sent.delivery).toBe('sent');
      const [received] = await sink.waitFor(1);
      expect(received!.to).toEqual(['a@example.com']);
      expect(received!.text).toContain(sent.link);
    } finally {
      await sink.close();
    }
    const kept = await invite('smtp://127.0.0.1:1', 'b@example.com');
    expect(kept.delivery).toBe('kept');
    const outbox = await listOutbox(storage.db, ws.id, { offset: 0, limit: 10 }, { owner: true });
    expect(outbox.emails.map((e) => [e.recipient, e.owners_only, e.error !== null])).toEqual([
      ['b@example.com', 1, true],
    ]);
    expect((await listOutbox(storage.db, ws.id, { offset: 0, limit: 10 })).total).toBe(0);
  });

  it('an invitation expires after 72 hours, and a newer one to the same email replaces it', async () => {
    const { ws, by } = await workspace();
    const first = await inviteStaff(storage, clock.fn, MAIL, {
      workspaceId: ws.id,
      email: 'late@example.com',
      role: 'staff',
      by,
    });
    const second = await inviteStaff(storage, clock.fn, MAIL, {
      workspaceId: ws.id,
      email: 'late@example.com',
      role: 'staff',
      by,
    });
    await expect(openInvitation(storage.db, clock.fn, tokenOf(first.link))).rejects.toThrow(/not valid/);
    expect((await listWorkspaceStaff(storage.db, ws.id, clock.now)).invitations).toHaveLength(1);
    const saved = clock.now;
    clock.now += INVITATION_TTL_MS;
    try {
      await expect(openInvitation(storage.db, clock.fn, tokenOf(second.link))).rejects.toThrow(/expired/);
      await expect(
        acceptInvitation(storage, clock.fn, {
          token: tokenOf(second.link),
          name: 'Late',
          password: 'a good password',
          address: '198.51.100.9',
        }),
      ).rejects.toThrow(/expired/);
      expect((await listWorkspaceStaff(storage.db, ws.id, clock.now)).invitations).toHaveLength(0);
    } finally {
      clock.now = saved;
    }
  });
});
