import type { InvitationView } from '../../resources/staff/invitation.service.ts';
import { html } from '../html.ts';
import { ROLE_LABEL } from './staff.view.ts';
import { csrfField, describedBy, fieldError, notice, page, type PageContext } from './layout.ts';

/** The page an invitation link opens: the person picks their name and password, then is signed in. */
export function acceptInvitationPage(
  ctx: PageContext,
  token: string,
  invitation: InvitationView,
  state: { name?: string; errors?: Record<string, string> } = {},
) {
  const e = state.errors ?? {};
  return page(
    ctx,
    `Join ${invitation.workspaceName}`,
    html`${Object.keys(e).length > 0 && notice('bad', 'You have not joined yet; see the fields below.')}
    <p>${invitation.invitedBy} invited ${invitation.email} to the developer settings of ${invitation.workspaceName}
      as ${ROLE_LABEL[invitation.role]}. Choose your name and password to join; you are signed in at once.</p>
    <form method="post" action="/console/invitations/${token}">
      ${csrfField(ctx)}
      <div class="field">
        <label for="email">Email</label>
        <input type="email" id="email" name="email" value="${invitation.email}" readonly autocomplete="username">
      </div>
      <div class="field">
        <label for="name">Your name</label>
        <input type="text" id="name" name="name" required maxlength="200" autocomplete="name" value="${state.name ?? ''}"${describedBy('name', e.name)}>
        ${fieldError('name', e.name)}
      </div>
      <div class="field">
        <label for="new_password">Password (8 characters or more)</label>
        <input type="password" id="new_password" name="new_password" required autocomplete="new-password"${describedBy('new_password', e.new_password)}>
        ${fieldError('new_password', e.new_password)}
      </div>
      <div class="field">
        <label for="confirm_password">Password again</label>
        <input type="password" id="confirm_password" name="confirm_password" required autocomplete="new-password"${describedBy('confirm_password', e.confirm_password)}>
        ${fieldError('confirm_password', e.confirm_password)}
      </div>
      <button type="submit">Join</button>
    </form>`,
  );
}
