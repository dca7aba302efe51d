import type { OpenInvitation } from '../../resources/staff/staff-admin.service.ts';
import type { StaffListRow, StaffRow } from '../../resources/staff/staff.repo.ts';
import type { SentInvitation } from '../../resources/staff/invitation.service.ts';
import { STAFF_ROLES, type StaffRole } from '../../resources/workspaces/workspace.service.ts';
import { html } from '../html.ts';
import { csrfField, describedBy, fieldError, notice, page, when, type PageContext } from './layout.ts';

export const ROLE_LABEL: Record<StaffRole, string> = { owner: 'Owner', key_manager: 'Key manager', staff: 'Staff' };

const DONE: Record<string, string> = {
  role: 'The role was changed.',
  removed: 'They were removed; every session they had has ended.',
};

function roleOptions(selected: string) {
  return STAFF_ROLES.map(
    (r) => html`<option value="${r}"${r === selected ? html` selected` : null}>${ROLE_LABEL[r]}</option>`,
  );
}

export interface StaffPageView {
  staff: StaffListRow[];
  invitations: OpenInvitation[];
  done?: string;
  error?: string;
  invite?: { email: string; role: string; error?: string };
}

export function staffPage(ctx: PageContext, view: StaffPageView) {
  const me = ctx.staff?.staffId;
  const rows = view.staff.map(
    (s) => html`<tr>
        <td>${s.name}${s.id === me ? ' (you)' : ''}</td>
        <td>${s.email}</td>
        <td>
          <form class="inline" method="post" action="/console/staff/${s.id}/role">
            ${csrfField(ctx)}
            <label class="visually-hidden" for="role-${s.id}">Role of ${s.name}</label>
            <select id="role-${s.id}" name="role">${roleOptions(s.role)}</select>
            <button type="submit" class="secondary">Change role<span class="visually-hidden"> of ${s.name}</span></button>
          </form>
        </td>
        <td>${when(s.created_at)}${!s.has_password && html`<br><span class="hint">No password yet</span>`}</td>
        <td><a href="/console/staff/${s.id}/remove">Remove<span class="visually-hidden"> ${s.name}</span></a></td>
      </tr>`,
  );
  const invite = view.invite ?? { email: '', role: 'staff' };
  return page(
    ctx,
    'Staff',
    html`${view.done && DONE[view.done] && notice('ok', DONE[view.done]!)}${view.error && notice('bad', view.error)}
    <p>The people who sign in to this workspace's developer settings. Owners manage staff; key managers
      manage keys, undo and webhooks; staff can sign in and read nothing else.</p>
    <table>
      <caption class="hint">Everyone with access, owners first</caption>
      <thead><tr>
        <th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th>
        <th scope="col">Added</th><th scope="col">Remove</th>
      </tr></thead>
      <tbody>${rows}</tbody>
    </table>
    <h2>Invite someone</h2>
    <form method="post" action="/console/staff/invite">
      ${csrfField(ctx)}
      <div class="field">
        <label for="invite-email">Email</label>
        <input type="email" id="invite-email" name="email" required maxlength="320" autocomplete="off" value="${invite.email}"${describedBy('invite-email', invite.error)}>
        ${fieldError('invite-email', invite.error)}
      </div>
      <div class="field">
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">${roleOptions(invite.role)}</select>
      </div>
      <button type="submit">Send invitation</button>
    </form>
    <p class="hint">The invitation is a link that works once, for 72 hours.</p>
    ${
      view.invitations.length > 0 &&
      html`<h2>Open invitations</h2>
    <table>
      <caption class="hint">Invitations not yet accepted; a new one to the same email replaces the old</caption>
      <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited by</th><th scope="col">Expires</th></tr></thead>
      <tbody>${view.invitations.map(
        (i) =>
          html`<tr><td>${i.email}</td><td>${ROLE_LABEL[i.role]}</td><td>${i.invitedBy}</td><td>${when(i.expiresAt)}</td></tr>`,
      )}</tbody>
    </table>`
    }`,
  );
}

export function invitationSentPage(ctx: PageContext, sent: SentInvitation | null) {
  if (!sent)
    return page(
      ctx,
      'Invitation link',
      html`${notice('info', 'An invitation’s link is shown only once, right after it is sent. Invite them again for a new one; the old link then stops working.')}
    <p><a href="/console/staff">Back to staff</a></p>`,
    );
  return page(
    ctx,
    'Invitation sent',
    html`${notice(
      'ok',
      sent.delivery === 'sent'
        ? html`Emailed an invitation to ${sent.email} as ${ROLE_LABEL[sent.role]}.`
        : html`No email went out (no SMTP server, or it refused): the invitation to ${sent.email} as
          ${ROLE_LABEL[sent.role]} is in the notifications, for owners only.`,
    )}
    <div class="field">
      <label for="invitation">Invitation link</label>
      <div class="secret-row">
        <input type="text" id="invitation" value="${sent.link}" readonly spellcheck="false" autocomplete="off">
        <button type="button" data-copy="invitation">Copy</button>
      </div>
      <p class="hint" id="invitation-status" role="status"></p>
    </div>
    <p>The link is shown here this once; it works once, until ${when(sent.expiresAt)}. Send it to them
      yourself if the email does not arrive.</p>
    <p><a href="/console/staff">Back to staff</a></p>`,
  );
}

export function removeStaffPage(ctx: PageContext, member: StaffRow, error?: string) {
  return page(
    ctx,
    `Remove ${member.name}?`,
    html`${error && notice('bad', error)}
    <p>${member.name} (${member.email}, ${ROLE_LABEL[member.role]}) will no longer be able to sign in, and every
      session they have ends now: their next click signs them out.</p>
    <form method="post" action="/console/staff/${member.id}/remove">
      ${csrfField(ctx)}
      <p class="actions"><button type="submit" class="danger">Remove</button>
        <a href="/console/staff">Cancel</a></p>
    </form>`,
  );
}
